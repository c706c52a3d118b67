//! Parquet files written by the tests themselves, with LiveCodeBench's schema.

#![allow(dead_code)]

use std::sync::Arc;

use parquet::basic::Compression;
use parquet::data_type::{ByteArray, ByteArrayType, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;

/// LiveCodeBench's column names, simplified: every id a string, a nanosecond timestamp, all
/// nullable. The dataset card's own types (`question_id` int64, `problem_id` a list of int64,
/// `contest_date` in microseconds), written by pyarrow, are the fixtures in tests/fixtures/pyarrow.
pub const LCB_SCHEMA: &str = "message schema {
  optional binary question_id (STRING);
  optional binary contest_id (STRING);
  optional int64 contest_date (TIMESTAMP(NANOS,false));
  optional binary difficulty (STRING);
  optional binary function_name (STRING);
  optional binary code (STRING);
  optional binary input (STRING);
  optional binary output (STRING);
  optional binary id (STRING);
  optional binary problem_id (STRING);
  optional int64 numsteps;
}";

/// One column's values, `None` for null.
#[derive(Clone, Debug)]
pub enum Column {
    Text(Vec<Option<String>>),
    Int(Vec<Option<i64>>),
}

/// One LiveCodeBench row; `None` fields are written as nulls.
#[derive(Clone, Debug, Default)]
pub struct LcbRow {
    pub question_id: Option<String>,
    pub contest_id: Option<String>,
    /// Nanoseconds since 1970.
    pub contest_date: Option<i64>,
    pub difficulty: Option<String>,
    pub function_name: Option<String>,
    pub code: Option<String>,
    pub input: Option<String>,
    pub output: Option<String>,
    pub id: Option<String>,
    pub problem_id: Option<String>,
    pub numsteps: Option<i64>,
}

pub const DAY_NANOS: i64 = 86_400 * 1_000_000_000;

/// A good row: `minimumCost`, counting '1's, with its true output.
pub fn lcb_row(n: usize, difficulty: &str) -> LcbRow {
    let ones = "1".repeat(n % 4);
    LcbRow {
        question_id: Some(format!("{}", 2700 + n / 3)),
        contest_id: Some("weekly-contest-347".into()),
        // 2023-08-12 is day 19581 since 1970.
        contest_date: Some((19_581 + n as i64) * DAY_NANOS),
        difficulty: Some(difficulty.into()),
        function_name: Some("minimumCost".into()),
        code: Some("def minimumCost(s: str) -> int:\n    return s.count('1')\n".into()),
        input: Some(format!("minimumCost(s = '00{ones}')")),
        output: Some(format!("{}", n % 4)),
        id: Some(format!("sample_{n}")),
        problem_id: Some(format!("{}_{}", 2700 + n / 3, n % 3)),
        numsteps: Some(500 + n as i64),
    }
}

impl LcbRow {
    pub fn columns(rows: &[LcbRow]) -> Vec<(&'static str, Column)> {
        let text = |f: fn(&LcbRow) -> &Option<String>| Column::Text(rows.iter().map(|r| f(r).clone()).collect());
        vec![
            ("question_id", text(|r| &r.question_id)),
            ("contest_id", text(|r| &r.contest_id)),
            ("contest_date", Column::Int(rows.iter().map(|r| r.contest_date).collect())),
            ("difficulty", text(|r| &r.difficulty)),
            ("function_name", text(|r| &r.function_name)),
            ("code", text(|r| &r.code)),
            ("input", text(|r| &r.input)),
            ("output", text(|r| &r.output)),
            ("id", text(|r| &r.id)),
            ("problem_id", text(|r| &r.problem_id)),
            ("numsteps", Column::Int(rows.iter().map(|r| r.numsteps).collect())),
        ]
    }
}

/// Writes `groups` (each a row group, its columns in schema order) with `schema` and `codec`.
pub fn write_parquet(schema: &str, codec: Compression, groups: &[Vec<(&str, Column)>]) -> Vec<u8> {
    let schema = Arc::new(parse_message_type(schema).expect("schema"));
    let properties = Arc::new(WriterProperties::builder().set_compression(codec).build());
    let mut writer = SerializedFileWriter::new(Vec::new(), schema, properties).expect("writer");
    for columns in groups {
        let mut group = writer.next_row_group().expect("row group");
        let mut columns = columns.iter();
        while let Some(mut column) = group.next_column().expect("column") {
            let (_, values) = columns.next().expect("as many columns as the schema");
            match values {
                Column::Text(values) => {
                    let (levels, present): (Vec<i16>, Vec<ByteArray>) =
                        levels(values, |v| ByteArray::from(v.as_bytes().to_vec()));
                    column.typed::<ByteArrayType>().write_batch(&present, Some(&levels), None).expect("text values");
                }
                Column::Int(values) => {
                    let (levels, present): (Vec<i16>, Vec<i64>) = levels(values, |v| *v);
                    column.typed::<Int64Type>().write_batch(&present, Some(&levels), None).expect("int values");
                }
            }
            column.close().expect("close column");
        }
        group.close().expect("close row group");
    }
    writer.into_inner().expect("file bytes")
}

/// Definition levels (1 present, 0 null) and the present values.
fn levels<T, U>(values: &[Option<T>], convert: impl Fn(&T) -> U) -> (Vec<i16>, Vec<U>) {
    let levels = values.iter().map(|v| i16::from(v.is_some())).collect();
    let present = values.iter().flatten().map(convert).collect();
    (levels, present)
}

/// An LCB file of the rows, `per_group` rows to a row group, snappy-compressed.
pub fn lcb_file(rows: &[LcbRow], per_group: usize) -> Vec<u8> {
    let groups: Vec<_> = rows.chunks(per_group).map(LcbRow::columns).collect();
    write_parquet(LCB_SCHEMA, Compression::SNAPPY, &groups)
}

/// The file the page's test imports to reach the panic path: one changed byte (at 12) makes the
/// `parquet` crate panic (a debug assertion, or a slice index in release), which natively is
/// caught but in wasm32 traps; the page decodes such a
/// file in a worker (`src/browser/loader.rs`) and must stay up (`e2e_import`).
pub fn file_that_panics_the_reader() -> Vec<u8> {
    let rows: Vec<LcbRow> = (0..6).map(|n| lcb_row(n, "easy")).collect();
    let mut bytes = lcb_file(&rows, 2);
    bytes[12] ^= 0x5a;
    bytes
}

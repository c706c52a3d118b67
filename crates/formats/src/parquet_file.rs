//! Parquet files (LiveCodeBench's execution set as Hugging Face serves it, or any flat table with
//! the columns of a dataset row) read row by row into samples.
//!
//! Each row becomes the JSON object a JSON Lines file would hold (timestamps and dates as ISO text)
//! and goes through the same row rules as JSON Lines (`execbench_core::sample_from_row`), so a
//! Parquet row and its JSON twin give the same sample. Rows are numbered from 1 across row groups.
//! A damaged row group costs its own rows only.

use bytes::Bytes;
use execbench_core::{FieldError, LoadReport, RowLoader, Sample};
use parquet::basic::{Compression, LogicalType, TimeUnit as ParquetTimeUnit};
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::record::{Field, Row};
use serde_json::{Map, Value};

use crate::datetime::{TimeUnit, date_text, timestamp_text};
use crate::livecodebench;

/// Reads a Parquet file. Rows shaped like LiveCodeBench's (see [`livecodebench::is_lcb_schema`])
/// are held to its rules too.
pub fn load_parquet(file: &str, bytes: &[u8]) -> LoadReport {
    let mut loader = RowLoader::new(file);
    let reader = match guarded(|| SerializedFileReader::new(Bytes::copy_from_slice(bytes))) {
        Ok(reader) => reader,
        Err(e) => {
            loader.error(1, None, format!("not a readable Parquet file: {e}"));
            return loader.finish();
        }
    };
    let schema = reader.metadata().file_metadata().schema_descr();
    let columns: Vec<String> = schema.root_schema().get_fields().iter().map(|f| f.name().to_string()).collect();
    // INT64 timestamps in nanoseconds have no converted type, so the record API hands them over
    // as plain integers: the schema says which columns they are.
    let nanos: Vec<String> = schema
        .columns()
        .iter()
        .filter(|c| matches!(c.logical_type_ref(), Some(LogicalType::Timestamp(t)) if t.unit == ParquetTimeUnit::NANOS))
        .map(|c| c.path().string())
        .collect();
    let convert: fn(Map<String, Value>) -> Result<Sample, FieldError> = if livecodebench::is_lcb_schema(&columns) {
        livecodebench::sample_from_row
    } else {
        execbench_core::sample_from_row
    };

    let mut first_row = 1;
    for group in 0..reader.num_row_groups() {
        let metadata = reader.metadata().row_group(group);
        let count = usize::try_from(metadata.num_rows()).unwrap_or(0);
        let last_row = first_row + count.saturating_sub(1);
        let where_ = format!("rows {first_row} to {last_row} (row group {} of {})", group + 1, reader.num_row_groups());
        if let Some((column, codec)) = metadata
            .columns()
            .iter()
            .find_map(|c| unsupported_codec(c.compression()).map(|codec| (c.column_path().string(), codec)))
        {
            loader.unreadable_rows(
                first_row,
                count,
                Some(&column),
                format!("{where_} cannot be read: compressed with {codec}; execbench reads uncompressed and snappy Parquet (what Hugging Face writes)"),
            );
            first_row += count;
            continue;
        }
        let rows = match guarded(|| {
            reader.get_row_group(group).and_then(|g| g.get_row_iter(None).map(|rows| rows.collect::<Vec<_>>()))
        }) {
            Ok(rows) => rows,
            Err(e) => {
                loader.unreadable_rows(first_row, count, None, format!("{where_} cannot be read: {e}"));
                first_row += count;
                continue;
            }
        };
        for (number, row) in (first_row..).zip(rows) {
            match row {
                Ok(row) => match json_row(&row, &nanos) {
                    Ok(object) => loader.row(number, convert(object)),
                    Err((field, message)) => loader.unreadable(number, Some(&field), message),
                },
                Err(e) => {
                    let rest = (last_row + 1).saturating_sub(number);
                    loader.unreadable_rows(
                        number,
                        rest,
                        None,
                        format!("rows {number} to {last_row} cannot be read: {e}"),
                    );
                    break;
                }
            }
        }
        first_row += count;
    }
    if loader.rows() == 0 {
        loader.error(1, None, "the file has no rows".to_string());
    }
    loader.finish()
}

/// Runs a `parquet` call, turning a panic into an error: the crate asserts on some damaged pages
/// instead of returning an error. Natively the panic is caught (its message still goes to the
/// panic hook); on wasm32 panics abort, so there a damaged file can still trap.
fn guarded<T>(read: impl FnOnce() -> parquet::errors::Result<T>) -> Result<T, String> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(read)) {
        Ok(result) => result.map_err(|e| e.to_string()),
        Err(panic) => {
            let what = execbench_core::panic_message(panic.as_ref());
            Err(format!("damaged data ({})", what.unwrap_or_else(|| "the Parquet reader gave up".to_string())))
        }
    }
}

/// The codecs this build cannot decompress (only `snap` is compiled in: pure Rust, so it builds
/// for wasm32 without a C compiler).
fn unsupported_codec(codec: Compression) -> Option<String> {
    match codec {
        Compression::UNCOMPRESSED | Compression::SNAPPY => None,
        other => Some(format!("{other:?}").split('(').next().unwrap_or("an unknown codec").to_string()),
    }
}

/// A row as a JSON object; a value that has no JSON form names its column.
fn json_row(row: &Row, nanos: &[String]) -> Result<Map<String, Value>, (String, String)> {
    let mut object = Map::new();
    for (name, field) in row.get_column_iter() {
        let value = match (field, nanos.iter().any(|n| n == name)) {
            (Field::Long(n), true) => Value::String(timestamp_text(*n, TimeUnit::Nanos)),
            (field, _) => json_value(field).map_err(|message| (name.clone(), message))?,
        };
        object.insert(name.clone(), value);
    }
    Ok(object)
}

fn json_value(field: &Field) -> Result<Value, String> {
    let number = |n: f64| serde_json::Number::from_f64(n).map_or(Value::Null, Value::Number);
    Ok(match field {
        Field::Null => Value::Null,
        Field::Bool(b) => Value::Bool(*b),
        Field::Byte(n) => Value::from(*n),
        Field::Short(n) => Value::from(*n),
        Field::Int(n) => Value::from(*n),
        Field::Long(n) => Value::from(*n),
        Field::UByte(n) => Value::from(*n),
        Field::UShort(n) => Value::from(*n),
        Field::UInt(n) => Value::from(*n),
        Field::ULong(n) => Value::from(*n),
        Field::Float16(n) => number(f64::from(*n)),
        Field::Float(n) => number(f64::from(*n)),
        Field::Double(n) => number(*n),
        Field::Str(s) => Value::String(s.clone()),
        // Some writers leave text columns without the UTF-8 annotation.
        Field::Bytes(b) => match std::str::from_utf8(b.data()) {
            Ok(text) => Value::String(text.to_string()),
            Err(e) => return Err(format!("binary value that is not UTF-8 text (byte {})", e.valid_up_to() + 1)),
        },
        Field::Date(days) => Value::String(date_text(i64::from(*days))),
        Field::TimestampMillis(ms) => Value::String(timestamp_text(*ms, TimeUnit::Millis)),
        Field::TimestampMicros(us) => Value::String(timestamp_text(*us, TimeUnit::Micros)),
        // Decimals and times of day: their own text form.
        Field::Decimal(_) | Field::TimeMillis(_) | Field::TimeMicros(_) => Value::String(field.to_string()),
        Field::Group(row) => {
            Value::Object(json_row(row, &[]).map_err(|(inner, message)| format!("`{inner}`: {message}"))?)
        }
        Field::ListInternal(list) => Value::Array(list.elements().iter().map(json_value).collect::<Result<_, _>>()?),
        Field::MapInternal(map) => {
            let mut object = Map::new();
            for (key, value) in map.entries() {
                let key = match json_value(key)? {
                    Value::String(s) => s,
                    other => other.to_string(),
                };
                object.insert(key, json_value(value)?);
            }
            Value::Object(object)
        }
    })
}

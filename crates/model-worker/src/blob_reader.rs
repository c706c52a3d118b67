//! A Blob read synchronously as `Read + Seek`, with `FileReaderSync` (which only workers have).
//! The model is loaded from a Blob of the file's kept parts: the GGUF reader asks for the header
//! and then each tensor at its offset, and only those windows are copied into wasm memory, so the
//! worker never holds the whole file beside the weights made from it.

use std::io::{self, Read, Seek, SeekFrom};

use js_sys::Uint8Array;
use web_sys::{Blob, FileReaderSync};

/// At most this much is copied per `read`: a large tensor arrives in windows, never as one
/// browser-side buffer of its whole size.
const WINDOW: u64 = 16 << 20;

pub struct BlobReader {
    blob: Blob,
    len: u64,
    at: u64,
    reader: FileReaderSync,
}

fn io_error(e: wasm_bindgen::JsValue) -> io::Error {
    io::Error::other(crate::files::js_error(&e))
}

impl BlobReader {
    pub fn new(blob: Blob) -> io::Result<BlobReader> {
        let reader = FileReaderSync::new().map_err(io_error)?;
        Ok(BlobReader { len: blob.size() as u64, blob, at: 0, reader })
    }
}

impl Read for BlobReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = (buf.len() as u64).min(self.len.saturating_sub(self.at)).min(WINDOW);
        if n == 0 {
            return Ok(0);
        }
        let window = self.blob.slice_with_f64_and_f64(self.at as f64, (self.at + n) as f64).map_err(io_error)?;
        let buffer = self.reader.read_as_array_buffer(&window).map_err(io_error)?;
        let bytes = Uint8Array::new(&buffer);
        if bytes.length() as u64 != n {
            return Err(io::Error::other(format!("read {} bytes of a {n}-byte window", bytes.length())));
        }
        bytes.copy_to(&mut buf[..n as usize]);
        self.at += n;
        Ok(n as usize)
    }
}

impl Seek for BlobReader {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let at = match to {
            SeekFrom::Start(at) => Some(at),
            SeekFrom::End(back) => self.len.checked_add_signed(back),
            SeekFrom::Current(by) => self.at.checked_add_signed(by),
        };
        self.at = at.ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "a seek before the start"))?;
        Ok(self.at)
    }
}

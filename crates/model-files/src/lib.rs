//! The in-browser model's files (issue 36), without I/O of its own:
//!
//! - [`catalogue`]: the models a user can pick, with their public URLs, sizes and published
//!   SHA-256 where one is known, and a custom entry (URL + SHA-256).
//! - [`download`]: the resumable download's bookkeeping: which parts are kept, where to resume,
//!   the `Range` asked and the `Content-Range` answered, the checksum's verdict.
//! - [`download_loop`]: the resumable, hash-checked download itself, over a part store and a
//!   ranged fetch (traits: Cache Storage and `fetch` in the model worker, fakes in the tests).
//! - [`protocol`]: the messages between the page and the model worker (`crates/model-worker`).
//!
//! The page and the model worker both use it; natively it is tested on its own.

pub mod catalogue;
pub mod download;
pub mod download_loop;
pub mod protocol;

#[cfg(test)]
mod prop_content_range;

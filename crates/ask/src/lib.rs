//! How one sample is asked of a model: the request sent through the caller's HTTP client with
//! time-outs, bounded retries and rate-limit waits ([`api`], [`backoff`]), the run's shared request
//! slots and how rate limits lower and restore them ([`gate`], [`recovery`]), what a running job
//! shows ([`status`]), "Test connection" ([`connection`]), a simulated model that needs no key
//! ([`simulate`]) and CodeCrash's generation protocol ([`protocol`]). What to send and how to read
//! the answer is `execbench-providers`'; what runs many samples is `execbench-run`'s engine.

pub mod api;
pub mod backoff;
pub mod connection;
pub mod gate;
pub mod protocol;
pub mod recovery;
pub mod simulate;
pub mod status;

//! Access patterns and request streams for ssdiq.
//!
//! Invariants of this crate:
//! - Pure: no I/O, no clock, no global state. Every random stream is a function of a seed.
//! - Patterns address *pages* (of the request block size for the engine, of the flash page
//!   size for the simulator); the caller maps pages to bytes.
//! - "Scrambled" patterns place their hot pages through a seeded bijection of `[0, n)`
//!   ([`Scrambler`]), so skew is spread over the whole range without a per-page table.
//! - Threads get independent deterministic substreams; sequential patterns split the range
//!   into one contiguous region per thread.

pub mod analysis;
mod data;
mod error;
mod mix;
mod pattern;
pub mod rng;
mod scramble;
mod source;
mod stream;
pub mod units;
pub mod zipf;
mod zone_order;

pub use data::DataPattern;
pub use mix::{Op, RwMix};
pub use pattern::{Pattern, PatternError, ZoneOrder, ZoneSpec};
pub use rng::SeededRng;
pub use scramble::Scrambler;
pub use source::{DrawSource, TimedRequest, TimedSource};
pub use stream::{Draw, PageStream, Request, RequestStream, StreamConfig};
pub use zipf::ZipfSampler;

//! The result model the renderers read: the `ssdiq/1` schema, defined in `ssdiq-schema`.

pub use ssdiq_schema::latency::*;
pub use ssdiq_schema::run::*;

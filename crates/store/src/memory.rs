//! The heap a store will allocate, estimated from its configuration before it does, so the
//! CLI can refuse a store that would not fit (instead of growing until the kernel kills it).
//!
//! Invariant (tested against a counting allocator in `tests/memory.rs`): the estimate is at
//! least what `Store::new` and a load allocate, and at most 10% + 1 MiB above it. It mirrors
//! the conditions under which `Store::new` allocates each table.

use crate::page::{History, PAGE};
use crate::space::Space;
use crate::store::{DataMode, Layout, StoreConfig};

/// Fixed scratch (page buffers, compressor, size model), with room for allocator slack.
const FIXED_BYTES: u64 = 512 << 10;

/// With compression: the size model's table of measured page patterns (bounded by the few
/// thousand patterns a generator has) and the compressors' state.
const COMPRESSION_BYTES: u64 = 2 << 20;

/// Heap of a store built from `cfg`, the device it runs on not counted.
pub fn store_bytes(cfg: &StoreConfig) -> u64 {
    let pages = cfg.pages;
    let frames = cfg.frames as u64;
    let bytes = cfg.data == DataMode::Bytes;
    let (compression, gdt) = match &cfg.layout {
        Layout::OutOfPlace { space, compression } => (*compression, space.gdt.is_some()),
        Layout::InPlace { .. } => (false, false),
    };
    let model_sizes = !bytes && compression;
    // Pool: frame contents (bytes mode), owner, dirty, referenced and free lists per frame,
    // the page table.
    let pool = if bytes { frames * PAGE as u64 } else { 0 } + frames * 10 + pages * 4;
    let histories = if !bytes && (compression || gdt) {
        pages * std::mem::size_of::<History>() as u64
    } else {
        0
    };
    let versions = if (cfg.verify && bytes) || model_sizes {
        pages * 4
    } else {
        0
    };
    let space = match &cfg.layout {
        Layout::OutOfPlace { space, .. } => Space::heap_bytes(space, pages),
        Layout::InPlace { .. } => 0,
    };
    // Bytes mode: a batch's staging buffer (an eviction batch, or a zone's worth of GC).
    let batch = if bytes {
        (cfg.evict_batch as u64).max(256) * (PAGE as u64 + 64)
    } else {
        0
    };
    let compressing = if compression { COMPRESSION_BYTES } else { 0 };
    FIXED_BYTES + pool + histories + versions + space + batch + compressing
}

//! Geometry of a simulated drive: pages, erase blocks, logical vs physical space.
//!
//! Invariants (checked by [`Geometry::new`]):
//! - `block_bytes` is a multiple of `page_bytes`; the physical capacity is a whole number of
//!   blocks; physical pages fit in a `u32` (the FTL stores page numbers as `u32`).
//! - `0 < logical_pages < physical_pages`: there is spare space.
//! - `reserve_blocks` are *extra* free blocks beyond `blocks` that GC relocates into: host data
//!   and GC share exactly the spare space of `blocks` (SSD-iq's simulator compacts victims in
//!   place and needs none; relocating out of place needs at least one).
//! - The spare space holds at least `open_blocks` blocks, so that greedy always finds a victim
//!   with an invalid page (see `Ftl::new`).
//!
//! Terms (docs/sources.md#terms): OP = (physical - logical) / logical, fill = logical / physical,
//! spare factor = (physical - logical) / physical.

pub use crate::error::GeometryError;
use serde::Serialize;

/// How the logical space is sized relative to the physical one.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub enum Provision {
    /// logical = fill x physical (SSD-iq's SSDFILL).
    Fill(f64),
    /// logical = physical / (1 + OP).
    Op(f64),
}

fn invalid(msg: String) -> GeometryError {
    GeometryError::Invalid(msg)
}

/// A drive's shape. All counts are exact integers; ratios are derived.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Geometry {
    pub page_bytes: u64,
    pub pages_per_block: u32,
    pub blocks: u32,
    /// U: pages the host can address.
    pub logical_pages: u64,
    /// Free blocks kept for GC *in addition to* `blocks`: host writes never take the last
    /// `reserve_blocks` free blocks. At least 1 (the block a victim is copied into).
    pub reserve_blocks: u32,
}

impl Geometry {
    /// `capacity_bytes` is the *physical* (raw) capacity, as in SSD-iq's simulator.
    pub fn new(
        capacity_bytes: u64,
        page_bytes: u64,
        block_bytes: u64,
        provision: Provision,
        reserve_blocks: u32,
    ) -> Result<Self, GeometryError> {
        if page_bytes == 0 || block_bytes == 0 || capacity_bytes == 0 {
            return Err(invalid("capacity, page and block sizes must be > 0".into()));
        }
        if !block_bytes.is_multiple_of(page_bytes) {
            return Err(invalid(format!(
                "block size {block_bytes} B is not a multiple of the page size {page_bytes} B"
            )));
        }
        if !capacity_bytes.is_multiple_of(block_bytes) {
            return Err(invalid(format!(
                "capacity {capacity_bytes} B is not a multiple of the block size {block_bytes} B"
            )));
        }
        let ppb = block_bytes / page_bytes;
        let blocks = capacity_bytes / block_bytes;
        let physical = blocks * ppb;
        if (blocks + reserve_blocks as u64) * ppb >= u32::MAX as u64 || ppb > u32::MAX as u64 / 2 {
            return Err(invalid(format!(
                "{physical} physical pages exceed the simulator's 2^32 page limit; use larger pages"
            )));
        }
        let logical = match provision {
            Provision::Fill(f) => {
                if !(f > 0.0 && f < 1.0) {
                    return Err(invalid(format!(
                        "fill {f} must be > 0 and < 1 (a full drive has no spare space)"
                    )));
                }
                (f * physical as f64).floor() as u64
            }
            Provision::Op(op) => {
                if !(op > 0.0 && op.is_finite()) {
                    return Err(invalid(format!("OP {op} must be > 0")));
                }
                (physical as f64 / (1.0 + op)).floor() as u64
            }
        };
        let g = Geometry {
            page_bytes,
            pages_per_block: ppb as u32,
            blocks: blocks as u32,
            logical_pages: logical,
            reserve_blocks,
        };
        if logical == 0 {
            return Err(invalid("the logical space holds no page".into()));
        }
        if reserve_blocks == 0 {
            return Err(invalid(
                "at least 1 reserved free block is needed for GC".into(),
            ));
        }
        g.check_spare(1)?;
        Ok(g)
    }

    /// Errors unless the spare space holds `open_blocks` blocks: with that many blocks open,
    /// the full ones then always hold an invalid page for GC to gain.
    pub fn check_spare(&self, open_blocks: u32) -> Result<(), GeometryError> {
        let need = open_blocks.max(1) as u64 * self.ppb();
        let spare = self.physical_pages() - self.logical_pages.min(self.physical_pages());
        if spare < need {
            return Err(invalid(format!(
                "too little spare space: {} spare pages < {} open blocks of {} pages; lower the fill or use more/smaller blocks",
                spare,
                open_blocks.max(1),
                self.pages_per_block
            )));
        }
        Ok(())
    }

    /// Blocks the FTL holds: `blocks` plus the GC reserve.
    pub fn ftl_blocks(&self) -> u32 {
        self.blocks + self.reserve_blocks
    }

    #[inline]
    pub fn ppb(&self) -> u64 {
        self.pages_per_block as u64
    }
    pub fn physical_pages(&self) -> u64 {
        self.blocks as u64 * self.ppb()
    }
    pub fn logical_bytes(&self) -> u64 {
        self.logical_pages * self.page_bytes
    }
    pub fn physical_bytes(&self) -> u64 {
        self.physical_pages() * self.page_bytes
    }
    /// logical / physical.
    pub fn fill(&self) -> f64 {
        self.logical_pages as f64 / self.physical_pages() as f64
    }
    /// (physical - logical) / logical.
    pub fn op(&self) -> f64 {
        (self.physical_pages() - self.logical_pages) as f64 / self.logical_pages as f64
    }
    /// (physical - logical) / physical.
    pub fn spare_factor(&self) -> f64 {
        1.0 - self.fill()
    }
    /// The fill the analytic models should use: open blocks never take part in GC, so they are
    /// not spare space (docs/sources.md#wa-models, "How to compare a simulator with them"); the reserve lies outside `blocks`.
    pub fn effective_fill(&self, open_blocks: u32) -> f64 {
        let unusable = open_blocks as u64 * self.ppb();
        self.logical_pages as f64 / (self.physical_pages() - unusable) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ssd_iq_default_shape() {
        let g = Geometry::new(16 << 30, 4096, 8 << 20, Provision::Fill(0.875), 2).unwrap();
        assert_eq!(g.pages_per_block, 2048);
        assert_eq!(g.blocks, 2048);
        assert_eq!(g.logical_pages, (2048u64 * 2048 * 7) / 8);
        assert!((g.op() - 1.0 / 7.0).abs() < 1e-12);
        assert!((g.spare_factor() - 0.125).abs() < 1e-12);
    }

    #[test]
    fn op_and_fill_agree() {
        let g = Geometry::new(1 << 30, 4096, 1 << 20, Provision::Op(0.25), 2).unwrap();
        assert!((g.fill() - 0.8).abs() < 1e-6);
    }

    #[test]
    fn bad_shapes_are_one_line_errors() {
        let cases = [
            (
                1u64 << 30,
                4096u64,
                1u64 << 20,
                Provision::Fill(1.2),
                "fill",
            ),
            (1 << 30, 4096, 1 << 20, Provision::Fill(1.0), "fill"),
            (
                1 << 30,
                4096,
                6000,
                Provision::Fill(0.9),
                "not a multiple of the page",
            ),
            (
                (1 << 30) + 4096,
                4096,
                1 << 20,
                Provision::Fill(0.9),
                "capacity",
            ),
            (
                4 << 20,
                4096,
                1 << 20,
                Provision::Fill(0.9),
                "too little spare",
            ),
        ];
        for (cap, page, block, prov, want) in cases {
            let e = Geometry::new(cap, page, block, prov, 2)
                .unwrap_err()
                .to_string();
            assert!(e.contains(want), "{e}");
            assert!(!e.contains('\n'));
        }
    }
}

//! Page compression: LZ4 (the paper's choice), one page at a time so each page can be read on
//! its own.
//!
//! Invariant: a stored page is either LZ4 output shorter than [`PAGE`] or the raw page
//! (exactly [`PAGE`] bytes); the stored size says which, so incompressible pages never fail
//! (ZLeanStore aborts on them).

use crate::page::{PageError, PAGE};

/// Reusable scratch space for compressing pages.
pub struct Compressor {
    out: Vec<u8>,
}

impl Default for Compressor {
    fn default() -> Self {
        Compressor {
            out: vec![0u8; lz4_flex::block::get_maximum_output_size(PAGE)],
        }
    }
}

impl Compressor {
    /// The bytes to store for `page`: its LZ4 form if shorter than a page, else the page.
    pub fn compress<'a>(&'a mut self, page: &'a [u8]) -> &'a [u8] {
        let n = lz4_flex::block::compress_into(&page[..PAGE], &mut self.out)
            .expect("the output buffer holds the worst case");
        if n < PAGE {
            &self.out[..n]
        } else {
            &page[..PAGE]
        }
    }
}

/// Restores a page from its stored bytes into `page`.
pub fn decompress(stored: &[u8], page: &mut [u8], pid: u64) -> Result<(), PageError> {
    if stored.len() == PAGE {
        page[..PAGE].copy_from_slice(stored);
        return Ok(());
    }
    match lz4_flex::block::decompress_into(stored, &mut page[..PAGE]) {
        Ok(PAGE) => Ok(()),
        Ok(n) => Err(PageError::Decompress {
            pid,
            reason: format!("{n} bytes instead of {PAGE}"),
        }),
        Err(e) => Err(PageError::Decompress {
            pid,
            reason: e.to_string(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::page::PageGen;

    #[test]
    fn roundtrip_compressible_and_raw() {
        let mut c = Compressor::default();
        for ratio in [1.0, 2.0] {
            let g = PageGen::calibrated(1, ratio, 14);
            let mut p = vec![0u8; PAGE];
            g.init(&mut p, 5);
            let stored = c.compress(&p).to_vec();
            if ratio > 1.0 {
                assert!(stored.len() < PAGE * 7 / 10, "{}", stored.len());
            } else {
                assert!(stored.len() > PAGE * 95 / 100, "{}", stored.len());
            }
            let mut back = vec![0u8; PAGE];
            decompress(&stored, &mut back, 5).unwrap();
            assert_eq!(back, p);
        }
        let mut back = vec![0u8; PAGE];
        assert!(decompress(&[1, 2, 3], &mut back, 9).is_err());
    }
}

//! Returning a namespace to a known state before a benchmark, as the SSD-iq paper asks (§3:
//! "the SSD must be fully erased, including all flash blocks and the FTL mappings", by
//! sanitize block erase): the choice of command and the Sanitize Status log (LID 81h).
//!
//! Invariants:
//! - Sanitize always acts on the whole NVM subsystem; Format NVM does when FNA bit 0 is set.
//!   Either is chosen only when it provably reaches no namespace but this one: the controller
//!   is alone in its subsystem (CMIC bit 1 clear) and this is its only active namespace.
//! - When neither is safe or supported, the caller deallocates the namespace's LBAs instead
//!   and says why; a reset never silently does less than it reports.

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::bytes::{need, u16_, u32_};
use crate::identify::IdentifyController;
use crate::NvmeError;

/// How to erase one namespace, strongest first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ResetMethod {
    /// Sanitize with block erase: every flash block of the subsystem erased.
    SanitizeBlockErase,
    /// Format NVM with the namespace's current LBA format, no secure erase.
    Format,
    /// Neither is safe or supported; the reason, for the report.
    DeallocateOnly(String),
}

/// Picks the strongest reset that touches only namespace `nsid`, given the controller's
/// identify data and its active namespace list.
pub fn choose_reset(ctrl: &IdentifyController, active: &[u32], nsid: u32) -> ResetMethod {
    let alone = !ctrl.may_share_subsystem() && active == [nsid];
    if ctrl.sanitize_block_erase() && alone {
        return ResetMethod::SanitizeBlockErase;
    }
    if ctrl.supports_format() && (!ctrl.format_applies_to_all_namespaces() || alone) {
        return ResetMethod::Format;
    }
    if !ctrl.sanitize_block_erase() && !ctrl.supports_format() {
        return ResetMethod::DeallocateOnly(
            "the drive supports neither sanitize block erase nor format".into(),
        );
    }
    let scope = if ctrl.may_share_subsystem() {
        "the subsystem may have other controllers".to_string()
    } else {
        format!("{} namespaces are active", active.len())
    };
    ResetMethod::DeallocateOnly(format!(
        "sanitize and format would reach other namespaces ({scope})"
    ))
}

/// SSTAT bits 2:0 of the Sanitize Status log.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SanitizeState {
    NeverSanitized,
    Completed,
    InProgress,
    Failed,
    /// Completed, and the drive did not deallocate (No-Deallocate After Sanitize).
    CompletedNoDeallocate,
    Reserved(u8),
}

/// The Sanitize Status log (LID 81h), the fields a waiting caller needs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SanitizeStatus {
    /// SPROG: fraction done, numerator over 65536 (meaningful while in progress).
    pub progress: u16,
    pub state: SanitizeState,
    /// SSTAT bit 8: no user data has been written since the last sanitize.
    pub global_data_erased: bool,
    /// Estimated seconds for a block erase; None when not reported (FFFFFFFFh).
    pub block_erase_estimate_s: Option<u32>,
}

impl SanitizeStatus {
    pub fn fraction_done(&self) -> f64 {
        self.progress as f64 / 65536.0
    }
}

/// Polls the Sanitize Status log (through `poll`) every `interval` until the sanitize started
/// last has ended: `Ok` when it completed, an error when it failed or outlasted `timeout`.
pub fn wait_for_sanitize(
    mut poll: impl FnMut() -> Result<SanitizeStatus, NvmeError>,
    timeout: Duration,
    interval: Duration,
) -> Result<(), NvmeError> {
    let start = Instant::now();
    loop {
        let st = poll()?;
        match st.state {
            SanitizeState::Completed | SanitizeState::CompletedNoDeallocate => return Ok(()),
            SanitizeState::Failed => {
                return Err(NvmeError::Unsupported(
                    "sanitize block erase failed (Sanitize Status log: failed)".into(),
                ))
            }
            _ if start.elapsed() > timeout => {
                return Err(NvmeError::Unsupported(format!(
                    "sanitize block erase still {:?} after {} s ({:.0}% done)",
                    st.state,
                    timeout.as_secs(),
                    st.fraction_done() * 100.0
                )))
            }
            _ => std::thread::sleep(interval),
        }
    }
}

pub fn decode_sanitize_status(buf: &[u8]) -> Result<SanitizeStatus, NvmeError> {
    need(buf, 20, "sanitize status log")?;
    let sstat = u16_(buf, 2);
    let state = match (sstat & 0x7) as u8 {
        0 => SanitizeState::NeverSanitized,
        1 => SanitizeState::Completed,
        2 => SanitizeState::InProgress,
        3 => SanitizeState::Failed,
        4 => SanitizeState::CompletedNoDeallocate,
        r => SanitizeState::Reserved(r),
    };
    let est = u32_(buf, 12);
    Ok(SanitizeStatus {
        progress: u16_(buf, 0),
        state,
        global_data_erased: sstat & (1 << 8) != 0,
        block_erase_estimate_s: (est != u32::MAX).then_some(est),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::identify::decode_identify_controller;

    /// A controller with the given OACS format bit, SANICAP, FNA and CMIC.
    fn ctrl(format: bool, sanicap: u32, fna: u8, cmic: u8) -> IdentifyController {
        let mut b = vec![0u8; 4096];
        b[76] = cmic;
        b[256..258].copy_from_slice(&(if format { 2u16 } else { 0 }).to_le_bytes());
        b[328..332].copy_from_slice(&sanicap.to_le_bytes());
        b[524] = fna;
        decode_identify_controller(&b).unwrap()
    }

    #[test]
    fn sanitize_when_this_is_the_only_namespace_of_a_lone_controller() {
        let c = ctrl(true, 0b010, 0, 0);
        assert_eq!(choose_reset(&c, &[1], 1), ResetMethod::SanitizeBlockErase);
        // Another active namespace, or a possibly shared subsystem: format, which is per
        // namespace here (FNA bit 0 clear).
        assert_eq!(choose_reset(&c, &[1, 2], 1), ResetMethod::Format);
        let shared = ctrl(true, 0b010, 0, 0b10);
        assert_eq!(choose_reset(&shared, &[1], 1), ResetMethod::Format);
        // Crypto erase or overwrite only: not a block erase, so format.
        assert_eq!(
            choose_reset(&ctrl(true, 0b101, 0, 0), &[1], 1),
            ResetMethod::Format
        );
    }

    #[test]
    fn a_subsystem_wide_format_needs_a_lone_namespace() {
        let c = ctrl(true, 0, 1, 0);
        assert_eq!(choose_reset(&c, &[1], 1), ResetMethod::Format);
        match choose_reset(&c, &[1, 3], 3) {
            ResetMethod::DeallocateOnly(why) => assert!(why.contains("2 namespaces"), "{why}"),
            m => panic!("{m:?}"),
        }
        match choose_reset(&ctrl(true, 0, 1, 0b10), &[1], 1) {
            ResetMethod::DeallocateOnly(why) => assert!(why.contains("other controllers"), "{why}"),
            m => panic!("{m:?}"),
        }
        // The namespace list must hold exactly this namespace, not merely one namespace.
        assert!(matches!(
            choose_reset(&c, &[2], 1),
            ResetMethod::DeallocateOnly(_)
        ));
    }

    #[test]
    fn nothing_supported_says_so() {
        match choose_reset(&ctrl(false, 0, 0, 0), &[1], 1) {
            ResetMethod::DeallocateOnly(why) => assert!(why.contains("neither"), "{why}"),
            m => panic!("{m:?}"),
        }
    }

    fn status(state: SanitizeState, progress: u16) -> SanitizeStatus {
        SanitizeStatus {
            progress,
            state,
            global_data_erased: false,
            block_erase_estimate_s: None,
        }
    }

    /// A drive whose status log answers `script` in turn, then its last entry forever.
    fn scripted(script: Vec<SanitizeState>) -> impl FnMut() -> Result<SanitizeStatus, NvmeError> {
        let mut i = 0;
        move || {
            let st = script[i.min(script.len() - 1)];
            i += 1;
            Ok(status(st, 16384))
        }
    }

    #[test]
    fn waiting_ends_with_the_sanitize() {
        use SanitizeState::*;
        let fast = Duration::from_millis(1);
        let long = Duration::from_secs(60);
        let mut polls = 0;
        let mut count = scripted(vec![InProgress, InProgress, InProgress, Completed]);
        wait_for_sanitize(
            || {
                polls += 1;
                count()
            },
            long,
            fast,
        )
        .unwrap();
        assert_eq!(polls, 4, "stops at the first completed status");
        wait_for_sanitize(
            scripted(vec![InProgress, CompletedNoDeallocate]),
            long,
            fast,
        )
        .unwrap();
        let e = wait_for_sanitize(scripted(vec![InProgress, Failed]), long, fast).unwrap_err();
        assert!(e.to_string().contains("failed"), "{e}");
        let e = wait_for_sanitize(scripted(vec![InProgress]), Duration::from_millis(20), fast)
            .unwrap_err();
        assert!(
            e.to_string()
                .contains("still InProgress after 0 s (25% done)"),
            "{e}"
        );
        // An error reading the log ends the wait with that error.
        let e = wait_for_sanitize(
            || {
                Err(NvmeError::Status {
                    command: "get log page",
                    status: 0x2109,
                })
            },
            long,
            fast,
        )
        .unwrap_err();
        assert!(matches!(e, NvmeError::Status { .. }), "{e}");
    }

    #[test]
    fn sanitize_status_fields() {
        let mut b = vec![0u8; 512];
        b[0..2].copy_from_slice(&32768u16.to_le_bytes());
        b[2..4].copy_from_slice(&(2u16 | 1 << 8).to_le_bytes());
        b[12..16].copy_from_slice(&90u32.to_le_bytes());
        let s = decode_sanitize_status(&b).unwrap();
        assert_eq!(s.state, SanitizeState::InProgress);
        assert!(s.global_data_erased);
        assert_eq!(s.fraction_done(), 0.5);
        assert_eq!(s.block_erase_estimate_s, Some(90));
        for (v, want) in [
            (0, SanitizeState::NeverSanitized),
            (1, SanitizeState::Completed),
            (3, SanitizeState::Failed),
            (4, SanitizeState::CompletedNoDeallocate),
            (6, SanitizeState::Reserved(6)),
        ] {
            b[2..4].copy_from_slice(&(v as u16).to_le_bytes());
            b[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
            let s = decode_sanitize_status(&b).unwrap();
            assert_eq!(s.state, want);
            assert!(!s.global_data_erased);
            assert_eq!(s.block_erase_estimate_s, None);
        }
        assert!(decode_sanitize_status(&b[..19]).is_err());
    }
}

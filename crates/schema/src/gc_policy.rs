//! GC policy names and their parsing: one type from the command line and the profiles to the
//! FTL and into every document that names a policy (serialized as its name). The behaviour
//! lives in the flash crate's `victim.rs`.
//!
//! Every policy chooses among *full* (closed) blocks only; open and free blocks are never
//! victims (docs/sources.md#wa-models, "How to compare a simulator with them").

use std::fmt;
use std::str::FromStr;

pub use crate::error::PolicyError;

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum GcPolicy {
    /// Fewest valid pages, O(1) via valid-count buckets.
    Greedy,
    /// Oldest closed block.
    Fifo,
    /// A uniformly random closed block.
    Random,
    /// Sample D closed blocks (with replacement), take the one with the fewest valid pages.
    DChoices(u32),
    /// LFS cost-benefit: maximise (1 - u) * age / (1 + u). O(blocks) per victim.
    CostBenefit,
    /// The first closed block under a utilisation threshold, scanning the FIFO of closed blocks
    /// from a persistent cursor (second chance), relocated to a separate GC frontier.
    FifoScan,
    /// Kang et al.'s 2R as SSD-iq's reference simulator implements it (`TwoR.hpp`): a normal
    /// and a cold region; GC picks a region, gathers its greedy victims until they hold a
    /// block's worth of invalid pages and merges them; merged blocks that end full are cold.
    TwoRGreedy,
    /// 2R with victims taken from the FIFO of full blocks under a utilisation threshold
    /// (0.5 at first, then 0.7, raised by 0.05 per pass over 70% of the FIFO).
    TwoRFifo,
    /// Greedy's mean-field model with the data separated by write frequency and the spare
    /// space split optimally between the classes (analytic). Not a bound: greedy on finite
    /// blocks can beat its own mean field (by ~0.2-1%), so a simulated policy can land below.
    SeparatedModel,
}

impl GcPolicy {
    /// Policies that always relocate into a separate GC frontier.
    pub fn implies_gc_frontier(self) -> bool {
        matches!(self, GcPolicy::FifoScan)
    }
    /// The 2R policies: GC merges a group of victims in place (no GC frontier).
    pub fn is_two_r(self) -> bool {
        matches!(self, GcPolicy::TwoRGreedy | GcPolicy::TwoRFifo)
    }
    /// Policies that need the valid-count buckets kept up to date on every invalidation.
    pub fn needs_buckets(self) -> bool {
        matches!(self, GcPolicy::Greedy)
    }
}

impl FromStr for GcPolicy {
    type Err = PolicyError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let err = |reason: &str| PolicyError {
            input: s.to_string(),
            reason: reason.to_string(),
        };
        let t = s.trim().to_ascii_lowercase();
        Ok(match t.as_str() {
            "greedy" => GcPolicy::Greedy,
            "fifo" | "lrw" => GcPolicy::Fifo,
            "random" => GcPolicy::Random,
            "cost-benefit" | "costbenefit" | "cb" => GcPolicy::CostBenefit,
            "fifo-scan" => GcPolicy::FifoScan,
            "2r-greedy" | "2r-g" => GcPolicy::TwoRGreedy,
            "2r-fifo" | "2r-f" => GcPolicy::TwoRFifo,
            "separated-model" => GcPolicy::SeparatedModel,
            "optimal" => {
                return Err(err(
                    "renamed separated-model: it is greedy's mean-field model with the data separated by write frequency, which greedy on finite blocks can beat, so not a bound",
                ))
            }
            _ => match t.strip_prefix("dchoices:") {
                Some(d) => {
                    let d: u32 = d
                        .parse()
                        .map_err(|_| err("D must be a whole number >= 1"))?;
                    if d == 0 {
                        return Err(err("D must be >= 1"));
                    }
                    GcPolicy::DChoices(d)
                }
                None => {
                    return Err(err(
                        "expected greedy, fifo, random, dchoices:D, cost-benefit, fifo-scan, 2r-greedy, 2r-fifo or separated-model",
                    ))
                }
            },
        })
    }
}

impl fmt::Display for GcPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GcPolicy::Greedy => f.write_str("greedy"),
            GcPolicy::Fifo => f.write_str("fifo"),
            GcPolicy::Random => f.write_str("random"),
            GcPolicy::DChoices(d) => write!(f, "dchoices:{d}"),
            GcPolicy::CostBenefit => f.write_str("cost-benefit"),
            GcPolicy::FifoScan => f.write_str("fifo-scan"),
            GcPolicy::TwoRGreedy => f.write_str("2r-greedy"),
            GcPolicy::TwoRFifo => f.write_str("2r-fifo"),
            GcPolicy::SeparatedModel => f.write_str("separated-model"),
        }
    }
}

impl From<GcPolicy> for String {
    fn from(p: GcPolicy) -> String {
        p.to_string()
    }
}

impl TryFrom<String> for GcPolicy {
    type Error = PolicyError;
    fn try_from(s: String) -> Result<Self, Self::Error> {
        s.parse()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for s in [
            "greedy",
            "fifo",
            "random",
            "dchoices:10",
            "cost-benefit",
            "fifo-scan",
            "2r-greedy",
            "2r-fifo",
            "separated-model",
        ] {
            let p: GcPolicy = s.parse().unwrap();
            assert_eq!(p.to_string(), s);
        }
        assert!("dchoices:0".parse::<GcPolicy>().is_err());
        assert!("lifo".parse::<GcPolicy>().is_err());
        let e = "optimal".parse::<GcPolicy>().unwrap_err().to_string();
        assert!(
            e.contains("renamed separated-model") && e.contains("not a bound"),
            "{e}"
        );
    }
}

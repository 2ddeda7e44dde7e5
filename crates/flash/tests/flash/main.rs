//! The FTL and the simulator end to end, one module per area, in one test binary (one link
//! instead of four). `memory` stays its own binary: its counting allocator is process-wide.

mod invariants;
mod oracles;
mod policies;
mod reference;
mod wear_level;

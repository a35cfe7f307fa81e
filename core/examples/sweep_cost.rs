use plan3d_core::planner;
use plan3d_core::state::Inputs;
use std::time::Instant;
fn main() {
    for (name, i) in [
        ("default x160", Inputs::default()),
        ("opening", Inputs::opening()),
    ] {
        for &m in planner::METHODS.iter() {
            let t0 = Instant::now();
            let r = planner::scaling_method(&i, m);
            println!(
                "{name} {m:?}: {:.1} ms, {} rows",
                t0.elapsed().as_secs_f64() * 1e3,
                r.map(|v| v.len()).unwrap_or(0)
            );
        }
    }
}

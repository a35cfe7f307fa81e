//! How long the page's per-input work takes natively: `planner::outputs`
//! and `planner::optimum` for the default inputs and along the size slider.
use plan3d_core::planner;
use plan3d_core::state::Inputs;
use std::time::Instant;

fn main() {
    let base = Inputs::default();
    println!("default: {:?}", base.to_query());
    let mut worst = 0.0f64;
    let mut total = 0.0;
    let mut n = 0;
    for k in 0..40 {
        let mut i = base;
        i.slide_size(10f64.powf(10.0 + f64::from(k) * 0.1));
        let t0 = Instant::now();
        let o = planner::outputs(&i);
        let t1 = Instant::now();
        let _ = planner::optimum(&i);
        let t2 = Instant::now();
        let a = (t1 - t0).as_secs_f64() * 1e3;
        let b = (t2 - t1).as_secs_f64() * 1e3;
        worst = worst.max(a + b);
        total += a + b;
        n += 1;
        if k % 5 == 0 {
            println!(
                "size {k}: outputs {a:.2} ms, optimum {b:.2} ms, ok {}",
                o.is_ok()
            );
        }
    }
    println!("mean {:.2} ms, worst {worst:.2} ms", total / f64::from(n));
    // The browser benchmark's drag starts from the page's opening (Llama
    // 3.1 405B on up to 16 384 H100s): `outputs` along the same sizes,
    // the fastest of five each; a drag's p95 is its slowest few sizes.
    let mut along = Vec::new();
    for k in 0..40 {
        let mut i = Inputs::opening();
        i.slide_size(10f64.powf(10.0 + f64::from(k) * 0.1));
        let mut best = f64::INFINITY;
        for _ in 0..5 {
            let t0 = Instant::now();
            let _ = planner::outputs(&i);
            best = best.min(t0.elapsed().as_secs_f64() * 1e3);
        }
        along.push((best, k));
    }
    along.sort_by(|a, b| a.0.total_cmp(&b.0));
    let slowest: Vec<String> = along
        .iter()
        .rev()
        .take(4)
        .map(|(t, k)| format!("size {k} {t:.2} ms"))
        .collect();
    println!(
        "from the opening: outputs median {:.2} ms, slowest {}",
        along[20].0,
        slowest.join(", ")
    );
    // The shown plan's schedule, simulated on every change of plan.
    let mut sched = Vec::new();
    for k in 0..40 {
        let mut i = base;
        i.slide_size(10f64.powf(10.0 + f64::from(k) * 0.1));
        let Ok(o) = planner::outputs(&i) else {
            continue;
        };
        let opt = planner::practice_optimum(&i, &o);
        let Some(shown) = planner::shown(&o, i.method, opt.as_ref(), i.shipped()) else {
            continue;
        };
        let t0 = Instant::now();
        let _ = planner::plan_schedule(&o.model, &o.hardware, &shown.plan);
        sched.push(t0.elapsed().as_secs_f64() * 1e3);
    }
    sched.sort_by(f64::total_cmp);
    println!(
        "schedule of the shown plan: median {:.2} ms, worst {:.2} ms",
        sched.get(sched.len() / 2).copied().unwrap_or(0.0),
        sched.last().copied().unwrap_or(0.0)
    );
    let mut base = base;
    base.slide_size(10f64.powf(12.1));
    println!("{:?}", base.to_query());
    let m = base.model.shape().unwrap();
    let hw = base.hardware();
    for method in planner::METHODS {
        let space = plan3d_core::search::Space {
            method: Some(method),
            ..Default::default()
        };
        let mut fastest = f64::INFINITY;
        let mut r = None;
        for _ in 0..50 {
            let t0 = Instant::now();
            r = Some(plan3d_core::search::practice(
                &m,
                &hw,
                base.parallelism,
                &Default::default(),
                &space,
                &base.knobs(),
            ));
            fastest = fastest.min(t0.elapsed().as_secs_f64() * 1e3);
        }
        let r = r.unwrap();
        println!(
            "{method:?}: {fastest:.3} ms (fastest of 50), evaluated {:?}",
            r.as_ref().map(|r| r.evaluated)
        );
    }
}

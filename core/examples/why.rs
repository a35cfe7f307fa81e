//! Prints the rules' plans for X160 with their binding constraints.
use plan3d_core::{model::x_family, search::*, Hardware, Method};
fn main() {
    let m = x_family(160).unwrap();
    for (method, par) in [
        (Method::Baseline, Parallelism::None),
        (Method::Baseline, Parallelism::Data),
        (Method::Partitioned, Parallelism::Data),
        (Method::Baseline, Parallelism::DataPipe),
        (Method::Improved, Parallelism::DataPipe),
        (Method::Baseline, Parallelism::ThreeD),
        (Method::Improved, Parallelism::ThreeD),
    ] {
        let p = rules(
            &m,
            &Hardware::default(),
            method,
            par,
            &Constraints::default(),
        )
        .unwrap();
        println!(
            "{} {}: {} GPUs, {:.3}, {:.2} d",
            par.name(),
            method.name(),
            p.evaluation.gpus,
            p.evaluation.efficiency,
            p.evaluation.time.days()
        );
        for b in p.binding.iter() {
            println!("   - {b}");
        }
    }
    let t = std::time::Instant::now();
    let r = exhaustive(
        &m,
        &Hardware::default(),
        None,
        Parallelism::ThreeD,
        &Constraints::default(),
    )
    .unwrap();
    println!(
        "exhaustive: {:?} in {:?}, evaluated {}",
        (
            r.best.method,
            r.best.evaluation.gpus,
            r.best.evaluation.config,
            r.best.evaluation.time.days()
        ),
        t.elapsed(),
        r.evaluated
    );
    let t = std::time::Instant::now();
    let f = pareto(
        &m,
        &Hardware::default(),
        None,
        Parallelism::ThreeD,
        &Constraints::default(),
        8,
    )
    .unwrap();
    println!("pareto: {} points in {:?}", f.len(), t.elapsed());
    for e in &f {
        println!(
            "   {} {} gpus {:.1} d {:.2} GiB eff {:.2}",
            e.config.method.name(),
            e.gpus,
            e.time.days(),
            e.memory.on_gpu(e.config.offload).gib(),
            e.efficiency
        );
    }
}

//! What the request fuzz targets share (not a target itself).

/// An X[x] model past X1024 (above ~200 T parameters) or a custom one of
/// thousands of layers: the practice search's "no plan" for it tries every
/// pipeline degree up to thousands of stages and takes seconds natively
/// (`plan3d run --model x3600`: 15 s), minutes under this harness's
/// instrumentation, which stalled a 15-second CI run once. The fuzzer
/// looks for panics and wrong answers, not speed: it skips them.
pub fn too_big(m: &plan3d_core::api::request::ModelRequest) -> bool {
    let x = m
        .model
        .as_deref()
        .and_then(|s| s.trim().strip_prefix(['x', 'X']))
        .and_then(|n| n.parse::<u64>().ok());
    x.is_some_and(|x| x > 1024) || m.layers.is_some_and(|l| l > 2048)
}

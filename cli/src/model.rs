//! `plan3d model`: shape, parameter counts and critical batch size.

use plan3d_core::ModelShape;
use serde_json::{json, Value};

pub(crate) fn model_json(m: &ModelShape) -> Value {
    json!({
        "seq_len": m.seq_len,
        "heads": m.heads,
        "head_size": m.head_size,
        "kv_heads": m.kv_heads,
        "d_model": m.width(),
        "ffn": m.ffn,
        "layers": m.layers,
        "params": m.params(),
        "params_exact": m.params_exact(),
        "critical_batch": m.critical_batch(),
    })
}

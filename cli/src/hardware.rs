//! `plan3d hardware`: a GPU's peak, memory and links with their
//! thresholds (Table A.1).

use plan3d_core::{Hardware, Link};
use serde_json::{json, Map, Value};

pub(crate) fn hardware_json(hw: &Hardware) -> Value {
    let mut links = Map::new();
    for link in Link::ALL {
        links.insert(
            link.key().into(),
            json!({
                "bandwidth": hw.bandwidth(link).get(),
                "threshold": hw.threshold(link).get(),
            }),
        );
    }
    json!({
        "gpu": hw.gpu.name,
        "peak_flops": hw.gpu.peak.get(),
        "memory_bytes": hw.gpu.memory.get(),
        "node_size": hw.node_size,
        "network": hw.network.name(),
        "links": links,
    })
}

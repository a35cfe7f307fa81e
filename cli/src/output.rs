//! Readable output: a two-column table of any JSON object, and numbers at
//! four significant figures.

use serde_json::Value;

/// A readable two-column table of a JSON object; byte fields also in GiB.
pub(crate) fn table(v: &Value) -> String {
    let mut rows = Vec::new();
    flatten("", v, &mut rows);
    let width = rows.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    rows.iter()
        .map(|(k, v)| format!("{k:<width$}  {v}"))
        .collect::<Vec<_>>()
        .join("\n")
}

pub(crate) fn flatten(prefix: &str, v: &Value, rows: &mut Vec<(String, String)>) {
    match v {
        Value::Object(map) => {
            for (k, v) in map {
                let key = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                flatten(&key, v, rows);
            }
        }
        // Where the step goes: one row per kernel class.
        Value::Array(items) if prefix.ends_with("kernels") => {
            for k in items {
                let f = |key: &str| k[key].as_f64().unwrap_or(0.0);
                let achieved = match (k["achieved"].as_f64(), k["unit"].as_str()) {
                    (Some(x), Some(unit)) => format!(", {} {unit}", num(x)),
                    _ => String::new(),
                };
                rows.push((
                    format!("{prefix}.{}", k["class"].as_str().unwrap_or("?")),
                    format!(
                        "{} s ({:.1} %){achieved}",
                        num(f("seconds")),
                        100.0 * f("share")
                    ),
                ));
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                flatten(&format!("{prefix}[{i}]"), item, rows);
            }
        }
        Value::Number(n) => {
            let x = n.as_f64().unwrap_or(f64::NAN);
            let shown = if prefix.ends_with(".bandwidth") {
                format!("{} GiB/s", num(x / plan3d_core::units::GIB))
            } else if (prefix.starts_with("memory.") && !is_count(prefix))
                || prefix.ends_with("_bytes")
                || prefix.ends_with(".memory_bytes")
            {
                format!("{} GiB", num(x / plan3d_core::units::GIB))
            } else if prefix == "days" || prefix.ends_with(".days") {
                format!("{} days", num(x))
            } else if n.is_u64() || n.is_i64() {
                n.to_string()
            } else {
                num(x)
            };
            rows.push((prefix.to_string(), shown));
        }
        Value::Null => rows.push((prefix.to_string(), "none".into())),
        other => rows.push((
            prefix.to_string(),
            other.to_string().trim_matches('"').to_string(),
        )),
    }
}

/// A memory stage's counts: its index, layers and micro-batches in flight
/// (not bytes).
fn is_count(key: &str) -> bool {
    [".stage", ".layers", ".in_flight"]
        .iter()
        .any(|s| key.ends_with(s))
}

/// A number at 4 significant figures, in scientific notation when large.
pub(crate) fn num(x: f64) -> String {
    if x != 0.0 && !(1e-3..1e6).contains(&x.abs()) {
        return format!("{x:.3e}");
    }
    let r = plan3d_core::round_sig(x, 4);
    let s = format!("{r:.4}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

/// A report as a JSON value (objects with sorted keys, as the CLI has
/// always printed them), or the request's error in words.
pub(crate) fn to_json<T: serde::Serialize, E: std::fmt::Display>(
    r: Result<T, E>,
) -> Result<Value, String> {
    let report = r.map_err(|e| e.to_string())?;
    serde_json::to_value(report).map_err(|e| e.to_string())
}

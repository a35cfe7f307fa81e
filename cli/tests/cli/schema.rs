//! The JSON schema: the shipped file is the one the types generate, every
//! `--json` output validates against it in shape, and the README's field
//! tables name exactly the fields it has.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use serde_json::Value;

use super::{plan3d, plan3d_words};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap()
}

fn schema() -> Value {
    let out = plan3d(&["schema"]);
    assert!(out.status.success());
    serde_json::from_slice(&out.stdout).expect("the schema is JSON")
}

#[test]
fn the_shipped_schema_is_the_generated_one() {
    let shipped = fs::read_to_string(root().join("static/plan3d.schema.json")).unwrap();
    let now = String::from_utf8(plan3d(&["schema"]).stdout).unwrap();
    assert!(
        shipped.trim_end() == now.trim_end(),
        "static/plan3d.schema.json is stale: run `cargo run -p plan3d-cli -- schema > static/plan3d.schema.json`"
    );
}

/// The properties of a definition, through `$ref`s and `allOf`.
fn properties<'a>(schema: &'a Value, def: &'a Value) -> Vec<(&'a String, &'a Value)> {
    let mut out = Vec::new();
    if let Some(r) = def.get("$ref").and_then(Value::as_str) {
        let name = r.trim_start_matches("#/$defs/");
        return properties(schema, &schema["$defs"][name]);
    }
    if let Some(p) = def.get("properties").and_then(Value::as_object) {
        out.extend(p.iter());
    }
    for key in ["allOf", "anyOf", "oneOf"] {
        for sub in def.get(key).and_then(Value::as_array).into_iter().flatten() {
            out.extend(properties(schema, sub));
        }
    }
    out
}

fn names(schema: &Value, def: &Value) -> BTreeSet<String> {
    properties(schema, def)
        .into_iter()
        .map(|(k, _)| k.clone())
        .collect()
}

/// Every object of a value has only fields its schema definition names.
fn conforms(schema: &Value, def: &Value, v: &Value, at: &str) {
    match v {
        Value::Object(o) => {
            let props = properties(schema, def);
            for (k, x) in o {
                let sub = props
                    .iter()
                    .find(|(n, _)| *n == k)
                    .unwrap_or_else(|| panic!("{at}.{k} is not in the schema"))
                    .1;
                conforms(schema, sub, x, &format!("{at}.{k}"));
            }
        }
        Value::Array(a) => {
            let items = def
                .get("items")
                .cloned()
                .or_else(|| {
                    let r = def.get("$ref")?.as_str()?.trim_start_matches("#/$defs/");
                    schema["$defs"][r].get("items").cloned()
                })
                .unwrap_or(Value::Null);
            for (i, x) in a.iter().enumerate() {
                conforms(schema, &items, x, &format!("{at}[{i}]"));
            }
        }
        _ => {}
    }
}

#[test]
fn every_output_has_the_schemas_fields() {
    let s = schema();
    let def = |n: &str| serde_json::json!({ "$ref": format!("#/$defs/{n}") });
    for (cmd, ty) in [
        ("model gpt-3", "ModelReport"),
        ("hardware --gpu h100-sxm", "HardwareReport"),
        (
            "evaluate --assumptions paper --model x160 --data 8 --tensor 4 --offload",
            "EvaluationReport",
        ),
        (
            "plan --assumptions paper --model gpt-3 --search exhaustive",
            "PlanReport",
        ),
        (
            "schedule --kind 1f1b --reduce 0.5 --data 2",
            "ScheduleReport",
        ),
        ("zero --params 1e9 --dp 8 --stage 2", "ZeroReport"),
        (
            "estimate --params 1e9 --tokens 1e10 --gpus 8 --flops-per-gpu 1e14",
            "EstimateReport",
        ),
    ] {
        let out = plan3d_words(&format!("{cmd} --json"));
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        conforms(&s, &def(ty), &v, cmd);
        // And nothing the schema promises is missing.
        let have: BTreeSet<String> = v.as_object().unwrap().keys().cloned().collect();
        let want = names(&s, &def(ty));
        let optional = [
            "evaluated",
            "pareto",
            "rules",
            "step",
            "kernels",
            "experts",
            "latent",
            "profile",
            "preset",
            "wall_days",
            "goodput",
            "offload_modules",
        ];
        for k in want.difference(&have) {
            assert!(optional.contains(&k.as_str()), "{cmd}: no {k}");
        }
    }
    // `evaluate --timeline json` writes a TimelineReport (no `--json`).
    let cmd = "evaluate --model gpt-3 --assumptions practice --data 4 --pipe 4 --tensor 8 \
               --micro-batches 8 --virtual-stages 2 --timeline json";
    let v: Value = serde_json::from_slice(&plan3d_words(cmd).stdout).unwrap();
    conforms(&s, &def("TimelineReport"), &v, cmd);
    let have: BTreeSet<String> = v.as_object().unwrap().keys().cloned().collect();
    assert_eq!(have, names(&s, &def("TimelineReport")));
    let rows: Value = serde_json::from_slice(
        &plan3d_words("sweep --from 1e9 --to 1e15 --points 5 --json").stdout,
    )
    .unwrap();
    for r in rows.as_array().unwrap() {
        conforms(&s, &def("SweepRowReport"), r, "sweep");
    }
}

/// The field names a README table row documents: `a`, `b` lists,
/// `x.{a,b}` groups, `x[]` arrays and `links.<link>.bandwidth`, as paths.
fn documented(cell: &str) -> Vec<String> {
    let mut out = Vec::new();
    for part in cell.split('`').skip(1).step_by(2) {
        let part = part.replace("[]", "");
        if let (Some(open), Some(close)) = (part.find('{'), part.find('}')) {
            for inner in part[open + 1..close].split(',') {
                out.push(format!(
                    "{}{}{}",
                    &part[..open],
                    inner.trim(),
                    &part[close + 1..]
                ));
            }
        } else {
            out.push(part);
        }
    }
    out
}

#[test]
fn the_docs_field_tables_match_the_schema() {
    let s = schema();
    let readme = fs::read_to_string(root().join("docs/cli.md")).unwrap();
    let sections = [
        ("### `plan3d model", vec!["ModelReport"]),
        ("### `plan3d hardware", vec!["HardwareReport"]),
        ("### `plan3d evaluate", vec!["EvaluationReport"]),
        ("### `plan3d plan", vec!["PlanReport", "EvaluationReport"]),
        ("### `plan3d run", vec!["RunReport", "PlanReport"]),
        ("### `plan3d sweep", vec!["SweepRowReport"]),
        ("### `plan3d schedule", vec!["ScheduleReport"]),
        ("### `plan3d zero", vec!["ZeroReport"]),
        ("### `plan3d estimate", vec!["EstimateReport"]),
    ];
    for (heading, types) in sections {
        let start = readme
            .find(heading)
            .unwrap_or_else(|| panic!("no {heading}"));
        let body = &readme[start + heading.len()..];
        let body = &body[..body.find("\n### ").unwrap_or(body.len())];
        let mut doc = BTreeSet::new();
        for line in body.lines().filter(|l| l.starts_with("| `")) {
            let cell = line.split('|').nth(1).unwrap_or("");
            for path in documented(cell) {
                // Each documented path exists in the schema.
                let mut def = serde_json::json!({ "$ref": format!("#/$defs/{}", types[0]) });
                for key in path.split('.') {
                    let props = properties(&s, &def);
                    let next = if key == "<link>" {
                        props.first().map(|(_, v)| (*v).clone())
                    } else {
                        props
                            .iter()
                            .find(|(n, _)| *n == key)
                            .map(|(_, v)| (*v).clone())
                    };
                    def =
                        next.unwrap_or_else(|| panic!("{heading}: `{path}` is not in the schema"));
                }
                doc.insert(path.split('.').next().unwrap().to_string());
            }
        }
        // Each field of the type is documented (plan documents its own
        // fields and says "every field of evaluate").
        let own = names(
            &s,
            &serde_json::json!({ "$ref": format!("#/$defs/{}", types[0]) }),
        );
        let inherited: BTreeSet<String> = types[1..]
            .iter()
            .flat_map(|t| names(&s, &serde_json::json!({ "$ref": format!("#/$defs/{t}") })))
            .collect();
        for k in own.difference(&inherited) {
            assert!(doc.contains(k), "{heading}: field `{k}` is not documented");
        }
    }
}

//! One request, the same JSON from every door: each example of
//! `tests/examples.json` (the README's) gives byte for byte the same text
//! from the CLI's flags as from core's JSON door (`api::json::call`), which
//! the JavaScript API's `callJson` and Python's `plan3d.call` return (their
//! own tests compare them with this one); an error, the same words.

use super::plan3d;

#[test]
fn every_door_gives_the_same_json() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/examples.json");
    let examples: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    for ex in examples.as_array().unwrap() {
        let what = ex["what"].as_str().unwrap();
        let mut args: Vec<&str> = ex["cli"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap())
            .collect();
        if !args.contains(&"--timeline") {
            args.push("--json");
        }
        let out = plan3d(&args);
        let door =
            plan3d_core::api::json::call(ex["entry"].as_str().unwrap(), &ex["request"].to_string());
        match door {
            Ok(text) => {
                assert!(
                    out.status.success(),
                    "{what}: {}",
                    String::from_utf8_lossy(&out.stderr)
                );
                assert_eq!(
                    String::from_utf8_lossy(&out.stdout),
                    format!("{text}\n"),
                    "{what}"
                );
            }
            Err(e) => {
                assert_eq!(out.status.code(), Some(2), "{what}");
                assert_eq!(
                    String::from_utf8_lossy(&out.stderr),
                    format!("error: {e}\n"),
                    "{what}"
                );
            }
        }
    }
}

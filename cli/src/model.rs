//! `plan3d model`: shape, parameter counts and critical batch size.

use plan3d_core::api;
use serde_json::Value;

use crate::args::ShapeArgs;
use crate::output::to_json;

/// The model `name` with the shape flags' overrides.
pub(crate) fn model_cmd(name: Option<&str>, shape: &ShapeArgs) -> Result<Value, String> {
    to_json(api::model(&shape.request(name)))
}

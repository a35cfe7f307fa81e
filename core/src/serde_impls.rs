//! serde for core's own types where a derive cannot do: the named choices
//! (methods, activation models, parallelism settings, networks, schedule
//! kinds) are their stable names, as in the CLI and the URL; a GPU is its
//! preset name with its figures (a preset's name is `'static`, so a GPU
//! read back must name a preset; its figures may differ, as `--gpu-memory`
//! makes them).

use alloc::string::String;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::cost::assumptions::{AssumptionSet, Precision, Zero};
use crate::cost::{Method, PipelineSchedule, ZeroR};
use crate::hardware::{self, Gpu, Network};
use crate::memory::ActivationModel;
use crate::schedule::ScheduleKind;
use crate::search::Parallelism;
use crate::units::{Bytes, BytesPerSec, FlopPerSec};

/// `Serialize` as `name()`, `Deserialize` through `parse()`.
macro_rules! by_name {
    ($($t:ty),*) => {$(
        impl Serialize for $t {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.name())
            }
        }
        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let name = String::deserialize(d)?;
                <$t>::parse(&name).map_err(|e| D::Error::custom(alloc::format!("{e} '{name}'")))
            }
        }
    )*};
}

by_name!(
    Method,
    ActivationModel,
    Parallelism,
    Network,
    ScheduleKind,
    Zero,
    ZeroR,
    PipelineSchedule,
    Precision,
    AssumptionSet
);

/// A GPU's serde form.
#[derive(Serialize, Deserialize)]
struct GpuForm {
    name: String,
    peak: FlopPerSec,
    memory: Bytes,
    memory_bandwidth: BytesPerSec,
    nvlink: BytesPerSec,
    pcie: BytesPerSec,
    cpu_gpu: BytesPerSec,
    default_node_size: u32,
}

impl Serialize for Gpu {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        GpuForm {
            name: String::from(self.name),
            peak: self.peak,
            memory: self.memory,
            memory_bandwidth: self.memory_bandwidth,
            nvlink: self.nvlink,
            pcie: self.pcie,
            cpu_gpu: self.cpu_gpu,
            default_node_size: self.default_node_size,
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for Gpu {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let f = GpuForm::deserialize(d)?;
        let preset = hardware::gpu(&f.name)
            .map_err(|e| D::Error::custom(alloc::format!("{e} '{}'", f.name)))?;
        Ok(Gpu {
            name: preset.name,
            peak: f.peak,
            memory: f.memory,
            memory_bandwidth: f.memory_bandwidth,
            nvlink: f.nvlink,
            pcie: f.pcie,
            cpu_gpu: f.cpu_gpu,
            default_node_size: f.default_node_size,
        })
    }
}

//! Operation durations and memory sizes: unit values for teaching, or the
//! cost model's.

use crate::cost::memory::StageMemory;
use crate::cost::step;
use crate::error::{check_count, check_range, Error};
use crate::hardware::{Hardware, Link};
use crate::memory::ActivationModel;
use crate::model::ModelShape;
use crate::schedule::spec::ScheduleSpec;

/// Durations of the operations, per layer (per micro-batch for compute and
/// sends), in `unit`s.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Durations {
    /// Forward pass of one layer for one micro-batch.
    pub forward: f64,
    /// Backward pass of one layer for one micro-batch (recomputation
    /// included).
    pub backward: f64,
    /// Gradient reduction of one layer (an all-reduce, or a reduce-scatter
    /// when partitioned).
    pub reduce: f64,
    /// Parameter restore of one layer (partitioned).
    pub restore: f64,
    /// Activations of one micro-batch between two stages.
    pub send: f64,
    /// CPU-GPU transfer of one layer's parameters or gradients (offload).
    pub cpu_gpu: f64,
    /// Optimizer step of one layer.
    pub optimizer: f64,
    /// `"unit"` for teaching durations, `"s"` for seconds.
    pub unit: &'static str,
}

impl Durations {
    /// Teaching durations: forward 1, backward `backward` (2, or 3 with
    /// recomputation), free transfers, no optimizer step.
    #[must_use]
    pub fn unit(backward: f64) -> Self {
        Self {
            forward: 1.0,
            backward,
            reduce: 0.0,
            restore: 0.0,
            send: 0.0,
            cpu_gpu: 0.0,
            optimizer: 0.0,
            unit: "unit",
        }
    }

    /// Durations in seconds from the cost model: compute = flop / (peak ×
    /// kernel efficiency), with the tensor all-reduces (eq. 12) added since
    /// they are not overlapped; transfers = bytes / bandwidth (input +
    /// output, as in Table A.1):
    ///
    /// * forward: 2·b_µ·d_s·p_l / n_a flop (C.1); backward: (f−2)/2 times
    ///   that (3× with recomputation);
    /// * reduction: 8·p_l/n_a bytes, 4·p_l/n_a when partitioned
    ///   (reduce-scatter; C.4.1); restore: 4·p_l/n_a bytes;
    /// * send: 4·b_µ·d_s·d_m/n_a bytes per micro-batch (C.4.2);
    /// * CPU-GPU: 4·p_l/n_a bytes (fp16 parameters in, gradients out; C.5);
    /// * optimizer: reading and writing the layer's 12·p_l/n_a bytes of
    ///   state, at the memory bandwidth (partitioned: its 1/n_b share).
    ///
    /// # Errors
    ///
    /// Invalid shape or hardware, or degrees out of range.
    pub fn from_cost_model(
        model: &ModelShape,
        hw: &Hardware,
        tensor: u32,
        micro_batch: u32,
        data: u32,
        partition: bool,
        activation: ActivationModel,
    ) -> Result<Self, Error> {
        model.validate()?;
        hw.validate()?;
        check_count(
            "tensor-parallel degree",
            tensor.into(),
            1,
            model.heads.into(),
        )?;
        check_count("micro-batch size", micro_batch.into(), 1, crate::MAX_DEGREE)?;
        check_count("data-parallel degree", data.into(), 1, crate::MAX_DEGREE)?;
        let na = f64::from(tensor);
        // The compute follows the weights a token passes through (all of
        // them for a dense model; the active ones of a mixture of experts),
        // the state and its traffic every weight.
        let (pl, active) = (model.layer_params(), model.layer_active_params());
        let (ds, dm) = (f64::from(model.seq_len), model.width() as f64);
        let bmu = f64::from(micro_batch);
        let f = activation.flops_per_token_param();
        let rate = hw.gpu.peak.0 * hw.kernel_efficiency;
        // The tensor all-reduces add ν_NVLink/ν_a to every compute op.
        let tensor_overhead = if tensor > 1 {
            let nu_a = f * active / (4.0 * activation.tensor_allreduces() * dm * (na - 1.0));
            hw.threshold(Link::NvLink).0 / nu_a
        } else {
            0.0
        };
        let forward = 2.0 * bmu * ds * active / na / rate * (1.0 + tensor_overhead);
        let net = hw.network_bandwidth().0;
        let state_share = if partition { f64::from(data) } else { 1.0 };
        Ok(Self {
            forward,
            backward: forward * (f - 2.0) / 2.0,
            reduce: if partition { 4.0 } else { 8.0 } * pl / na / net,
            restore: 4.0 * pl / na / net,
            send: 4.0 * bmu * ds * dm / na / net,
            cpu_gpu: 4.0 * pl / na / hw.bandwidth(Link::CpuGpu).0,
            optimizer: 2.0 * 12.0 * pl / na / state_share / hw.gpu.memory_bandwidth.0,
            unit: "s",
        })
    }

    /// Durations in seconds from the practice evaluator
    /// ([`step::micro_batch_seconds`]): one micro-batch's passes on the
    /// heaviest device, the device's gradient reduction, weight gather and
    /// optimizer step, each spread over the `layers` a device holds in
    /// the simulated schedule, so that a simulated stage takes the
    /// evaluator's time. The CPU-GPU copy keeps [`Self::from_cost_model`]'s
    /// bytes over the CPU link.
    #[must_use]
    pub fn from_micro_batch(mb: &step::MicroBatchSeconds, layers: u32, cpu_gpu: f64) -> Self {
        let l = f64::from(layers.max(1));
        Self {
            forward: mb.forward / l,
            backward: mb.backward / l,
            reduce: mb.reduce / l,
            restore: mb.restore / l,
            send: mb.send,
            cpu_gpu,
            optimizer: mb.optimizer / l,
            unit: "s",
        }
    }

    pub(super) fn validate(&self) -> Result<(), Error> {
        for (what, v) in [
            ("forward duration", self.forward),
            ("backward duration", self.backward),
            ("reduce duration", self.reduce),
            ("restore duration", self.restore),
            ("send duration", self.send),
            ("CPU-GPU duration", self.cpu_gpu),
            ("optimizer duration", self.optimizer),
        ] {
            check_range(what, v, 0.0, 1e12)?;
        }
        // Ratios of transfers to compute must stay finite: no vanishing
        // compute (a subnormal forward made the bubble infinite).
        check_range("forward duration", self.forward, 1e-15, 1e12)?;
        check_range("backward duration", self.backward, 1e-15, 1e12)?;
        Ok(())
    }
}

/// Memory sizes for the memory-over-time curves, in bytes (or units).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MemorySizes {
    /// Resident per device: training state and buffers.
    pub resident: f64,
    /// One layer's activation checkpoint for one micro-batch.
    pub checkpoint: f64,
    /// The layer activations while one operation runs.
    pub activations: f64,
}

impl MemorySizes {
    /// Teaching sizes: one unit per layer checkpoint, nothing else.
    #[must_use]
    pub fn unit() -> Self {
        Self {
            resident: 0.0,
            checkpoint: 1.0,
            activations: 0.0,
        }
    }

    /// Sizes of a practice plan's pipeline device ([`StageMemory`]):
    /// resident its weights, gradients, optimizer state, logits and
    /// reserve; per layer and micro-batch what it keeps until the backward
    /// (its checkpoint, or every activation without recomputation); while
    /// a pass runs, the layer's working set. The stage's layers are
    /// spread over the `layers` the simulated device holds (fewer when
    /// the layers do not divide into equal chunks), so that its simulated
    /// peak is the stage's memory when the schedule holds the same
    /// micro-batches in flight.
    #[must_use]
    pub fn from_stage(stage: &StageMemory, layers: u32) -> Self {
        let kept_slots = f64::from(layers.max(1)) * stage.in_flight;
        Self {
            resident: stage.weights.0
                + stage.gradients.0
                + stage.optimizer.0
                + stage.logits.0
                + stage.reserve.0,
            checkpoint: if kept_slots > 0.0 {
                stage.activations.0 / kept_slots
            } else {
                0.0
            },
            activations: stage.working.0,
        }
    }

    /// Sizes from the cost model (C.3): checkpoints 2·b_µ·d_s·d_m/n_a per
    /// layer and micro-batch, layer activations b_µ·d_s·m0/n_a, resident
    /// state (12p over the model-parallel devices, or all devices when
    /// partitioned) and buffers 6·p_l/n_a.
    #[must_use]
    pub fn from_cost_model(
        model: &ModelShape,
        spec: &ScheduleSpec,
        tensor: u32,
        micro_batch: u32,
    ) -> Self {
        let na = f64::from(tensor.max(1));
        let (ds, dm) = (f64::from(model.seq_len), model.width() as f64);
        let bmu = f64::from(micro_batch.max(1));
        let mp = f64::from(spec.devices) * na;
        let state = if spec.partition {
            12.0 * model.params() / (mp * f64::from(spec.data.max(1)))
        } else {
            12.0 * model.params() / mp
        };
        Self {
            resident: state + 6.0 * model.layer_params() / na,
            checkpoint: 2.0 * bmu * ds * dm / na,
            activations: bmu * ds * model.layer_activation_per_token() / na,
        }
    }
}

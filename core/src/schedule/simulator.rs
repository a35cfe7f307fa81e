//! The list scheduler: runs each device's operations in its order, each
//! waiting for its inputs and for its stream, and records the events.

use alloc::vec;
use alloc::vec::Vec;

use crate::schedule::durations::Durations;
use crate::schedule::order::{order, segments, Op, Pass};
use crate::schedule::spec::ScheduleSpec;
use crate::schedule::timeline::{Event, EventKind, Stream};

pub(super) fn has_transfers(d: &Durations) -> bool {
    d.reduce > 0.0 || d.restore > 0.0 || d.send > 0.0 || d.cpu_gpu > 0.0
}

/// Parameter loads a device needs before an op: one per op whose segment
/// differs from the previous op's (the mixed buffering of Table C.1 keeps
/// the current layer's parameters between consecutive uses).
fn loads(ops: &[Op]) -> (Vec<Option<u32>>, Vec<u32>) {
    let mut need = Vec::with_capacity(ops.len());
    let mut list = Vec::new();
    let mut prev: Option<u32> = None;
    for op in ops {
        if prev == Some(op.seg) {
            need.push(None);
        } else {
            need.push(Some(list.len() as u32));
            list.push(op.seg);
        }
        prev = Some(op.seg);
    }
    (need, list)
}

/// Reductions (or offloads) follow these ops: every backward when the state
/// is partitioned or offloaded with standard accumulation (fig. 2 top),
/// else the last backward of the segment.
fn reduces_after(ops: &[Op], per_micro_batch: bool) -> Vec<bool> {
    let mut last = vec![false; ops.len()];
    // The pass that completes the gradients: W when the backward is split.
    let grads = if ops.iter().any(|o| o.pass == Pass::W) {
        Pass::W
    } else {
        Pass::B
    };
    if per_micro_batch {
        for (i, op) in ops.iter().enumerate() {
            last[i] = op.pass == grads;
        }
        return last;
    }
    let mut seen = vec![false; ops.iter().map(|o| o.seg as usize + 1).max().unwrap_or(0)];
    for (i, op) in ops.iter().enumerate().rev() {
        if op.pass == grads && !seen[op.seg as usize] {
            seen[op.seg as usize] = true;
            last[i] = true;
        }
    }
    last
}

struct DeviceState {
    ops: Vec<Op>,
    next: usize,
    compute_free: f64,
    net_free: f64,
    pipe_free: f64,
    cpu_free: f64,
    need: Vec<Option<u32>>,
    load_segs: Vec<u32>,
    /// End of each parameter load (NaN until issued).
    load_end: Vec<f64>,
    issued: usize,
    /// Index of the last op consuming each load.
    last_use: Vec<usize>,
    reduce_after: Vec<bool>,
}

/// Runs the list scheduler; records the events into `record` when given.
/// Returns the makespan.
pub(super) fn run(spec: &ScheduleSpec, record: Option<&mut Vec<Event>>) -> f64 {
    let mut sink = Sink {
        events: record,
        makespan: 0.0,
    };
    run_into(spec, &mut sink);
    sink.makespan
}

struct Sink<'a> {
    events: Option<&'a mut Vec<Event>>,
    makespan: f64,
}

impl Sink<'_> {
    fn push(&mut self, e: Event) {
        self.makespan = self.makespan.max(e.end);
        if let Some(v) = self.events.as_deref_mut() {
            v.push(e);
        }
    }
}

fn run_into(spec: &ScheduleSpec, events: &mut Sink<'_>) {
    let d = spec.durations;
    let segs = segments(spec);
    let nseg = segs.len();
    let nmu = spec.micro_batches as usize;
    let idx = |k: u32, mb: u32| k as usize * nmu + mb as usize;
    // When each forward/backward output is available to the next
    // (previous) segment's device, and when each forward ended.
    let mut f_ready = vec![f64::NAN; nseg * nmu];
    let mut b_ready = vec![f64::NAN; nseg * nmu];
    let mut f_end = vec![f64::NAN; nseg * nmu];
    // When each backward ended (a split backward's W waits for its B).
    let mut b_end = vec![f64::NAN; nseg * nmu];
    // A split backward: B is the backward less the weight gradient, W the
    // weight gradient, as long as a forward (the same GEMMs' count).
    let split = spec.kind.splits_backward();
    let (b_dur, w_dur) = if split {
        ((d.backward - d.forward).max(0.0), d.forward)
    } else {
        (d.backward, 0.0)
    };
    let loads_needed = spec.partition || spec.offload;
    let per_mb_reduce = (spec.partition || spec.offload) && !spec.kind.layered();
    let mut devs: Vec<DeviceState> = (0..spec.devices)
        .map(|dev| {
            let ops = order(spec, dev, &segs);
            let (need, load_segs) = if loads_needed {
                loads(&ops)
            } else {
                (vec![None; ops.len()], Vec::new())
            };
            let mut last_use = vec![0; load_segs.len()];
            let mut current = 0usize;
            for (i, n) in need.iter().enumerate() {
                if let Some(j) = n {
                    current = *j as usize;
                }
                if !load_segs.is_empty() {
                    last_use[current] = i;
                }
            }
            let reduce_after = reduces_after(&ops, per_mb_reduce);
            DeviceState {
                load_end: vec![f64::NAN; load_segs.len()],
                ops,
                next: 0,
                compute_free: 0.0,
                net_free: 0.0,
                pipe_free: 0.0,
                cpu_free: 0.0,
                need,
                load_segs,
                issued: 0,
                last_use,
                reduce_after,
            }
        })
        .collect();
    let total: usize = devs.iter().map(|s| s.ops.len()).sum();
    if let Some(v) = events.events.as_deref_mut() {
        v.reserve(total * 2);
    }
    let layers = |k: u32| f64::from(segs[k as usize].layers);

    // Issue parameter loads whose buffer is free: load j needs load j−2's
    // last consumer done (two parameter buffers, Table C.1).
    let issue = |dev: u32, st: &mut DeviceState, events: &mut Sink<'_>| {
        while st.issued < st.load_segs.len() {
            let j = st.issued;
            // Issued right after that consumer is scheduled, so the device's
            // compute is free exactly when it ended.
            let free_at = if j < 2 {
                0.0
            } else if st.last_use[j - 2] < st.next {
                st.compute_free
            } else {
                return;
            };
            let k = st.load_segs[j];
            let seg = segs[k as usize];
            let mut end = free_at;
            if spec.partition {
                let start = st.net_free.max(free_at);
                end = start + d.restore * layers(k);
                st.net_free = end;
                if end > start {
                    events.push(Event {
                        device: dev,
                        stream: Stream::Network,
                        kind: EventKind::Restore,
                        layer: seg.first,
                        layers: seg.layers,
                        micro_batch: None,
                        start,
                        end,
                    });
                }
            }
            if spec.offload {
                let start = st.cpu_free.max(free_at);
                let e = start + d.cpu_gpu * layers(k);
                st.cpu_free = e;
                if e > start {
                    events.push(Event {
                        device: dev,
                        stream: Stream::CpuGpu,
                        kind: EventKind::Reload,
                        layer: seg.first,
                        layers: seg.layers,
                        micro_batch: None,
                        start,
                        end: e,
                    });
                }
                end = end.max(e);
            }
            st.load_end[j] = end;
            st.issued += 1;
        }
    };

    for (dev, st) in devs.iter_mut().enumerate() {
        issue(dev as u32, st, events);
    }
    let mut done = 0usize;
    while done < total {
        let mut progressed = false;
        for (dev, st) in devs.iter_mut().enumerate() {
            while let Some(&op) = st.ops.get(st.next) {
                let i = idx(op.seg, op.mb);
                let k = op.seg as usize;
                // Inputs: the previous segment's forward output, or the next
                // segment's backward output and this segment's own forward.
                // NaN until the producing op is scheduled.
                let ready_of = |op: Op| {
                    let (k, i) = (op.seg as usize, idx(op.seg, op.mb));
                    match op.pass {
                        Pass::F if segs[k].entry => 0.0,
                        Pass::F => f_ready[i - nmu],
                        Pass::B if segs[k].exit => f_end[i],
                        Pass::B => {
                            let (own, next) = (f_end[i], b_ready[i + nmu]);
                            if own.is_nan() || next.is_nan() {
                                f64::NAN
                            } else {
                                own.max(next)
                            }
                        }
                        Pass::W => b_end[i],
                    }
                };
                let mut ready = ready_of(op);
                // A fused pair (DualPipe's F&B) starts once both have their
                // inputs, and hands its outputs on when the second ends.
                let partner = if op.fused {
                    st.ops.get(st.next + 1).copied()
                } else {
                    None
                };
                let mut pair_rest = 0.0;
                if let Some(q) = partner {
                    ready = ready.max(ready_of(q));
                    pair_rest = match q.pass {
                        Pass::F => d.forward,
                        Pass::B => b_dur,
                        Pass::W => w_dur,
                    } * f64::from(segs[q.seg as usize].layers);
                }
                if ready.is_nan() {
                    break;
                }
                let load_ready = match st.need[st.next] {
                    Some(j) => {
                        let e = st.load_end[j as usize];
                        if e.is_nan() {
                            break;
                        }
                        e
                    }
                    None => 0.0,
                };
                let seg = segs[k];
                let dur = match op.pass {
                    Pass::F => d.forward,
                    Pass::B => b_dur,
                    Pass::W => w_dur,
                } * f64::from(seg.layers);
                let start = st.compute_free.max(ready).max(load_ready);
                let end = start + dur;
                st.compute_free = end;
                events.push(Event {
                    device: dev as u32,
                    stream: Stream::Compute,
                    kind: match op.pass {
                        Pass::F => EventKind::Forward,
                        Pass::B => EventKind::Backward,
                        Pass::W => EventKind::WeightGradient,
                    },
                    layer: seg.first,
                    layers: seg.layers,
                    micro_batch: Some(op.mb),
                    start,
                    end,
                });
                // Hand the output to the neighbouring segment.
                let neighbour = match op.pass {
                    Pass::F => (!seg.exit).then(|| k + 1),
                    Pass::B => (!seg.entry).then(|| k - 1),
                    Pass::W => None,
                };
                let mut avail = end + pair_rest;
                if let Some(nk) = neighbour {
                    if segs[nk].device != seg.device && d.send > 0.0 {
                        let s = st.pipe_free.max(avail);
                        avail = s + d.send;
                        st.pipe_free = avail;
                        events.push(Event {
                            device: dev as u32,
                            stream: Stream::Pipeline,
                            kind: EventKind::Send,
                            layer: seg.first,
                            layers: seg.layers,
                            micro_batch: Some(op.mb),
                            start: s,
                            end: avail,
                        });
                    }
                }
                match op.pass {
                    Pass::F => {
                        f_end[i] = end;
                        f_ready[i] = avail;
                    }
                    Pass::B => {
                        b_ready[i] = avail;
                        b_end[i] = end;
                    }
                    Pass::W => {}
                }
                // Gradients leave after the segment's (last) backward.
                if st.reduce_after[st.next] {
                    if spec.data > 1 && d.reduce > 0.0 {
                        let s = st.net_free.max(end);
                        st.net_free = s + d.reduce * f64::from(seg.layers);
                        events.push(Event {
                            device: dev as u32,
                            stream: Stream::Network,
                            kind: EventKind::Reduce,
                            layer: seg.first,
                            layers: seg.layers,
                            micro_batch: per_mb_reduce.then_some(op.mb),
                            start: s,
                            end: st.net_free,
                        });
                    }
                    if spec.offload && d.cpu_gpu > 0.0 {
                        let s = st.cpu_free.max(end);
                        st.cpu_free = s + d.cpu_gpu * f64::from(seg.layers);
                        events.push(Event {
                            device: dev as u32,
                            stream: Stream::CpuGpu,
                            kind: EventKind::Offload,
                            layer: seg.first,
                            layers: seg.layers,
                            micro_batch: per_mb_reduce.then_some(op.mb),
                            start: s,
                            end: st.cpu_free,
                        });
                    }
                }
                st.next += 1;
                issue(dev as u32, st, events);
                done += 1;
                progressed = true;
            }
        }
        if !progressed {
            // Unreachable for the orders built above; guard against a hang.
            break;
        }
    }
    // The optimizer step, once the device's transfers are done.
    if spec.durations.optimizer > 0.0 {
        for (dev, st) in devs.iter().enumerate() {
            let own: u32 = segs
                .iter()
                .filter(|s| s.device == dev as u32)
                .map(|s| s.layers)
                .sum();
            let start = st
                .compute_free
                .max(st.net_free)
                .max(st.pipe_free)
                .max(st.cpu_free);
            events.push(Event {
                device: dev as u32,
                stream: Stream::Compute,
                kind: EventKind::Optimizer,
                layer: 0,
                layers: own,
                micro_batch: None,
                start,
                end: start + spec.durations.optimizer * f64::from(own),
            });
        }
    }
}

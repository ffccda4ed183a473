//! Packets written flit by flit ([`Network::enqueue_open`]) and nodes that drain into bounded receive buffers
//! ([`DrainPolicy::Budgeted`]): what a register-mapped network port such as Tilera's UDN needs.

use noc::{Cycle, DrainPolicy, Network, NetworkConfig, NodeId, DRAIN_CLASSES, HEAD_NEEDS_NO_ROOM};

fn line(width: u32) -> Network {
    let cfg = NetworkConfig {
        width,
        height: 1,
        buffer_depth_flits: 4,
        eject_queue_flits: 2,
        watchdog_cycles: 0,
        ..Default::default()
    };
    let mut net = Network::new(cfg).unwrap();
    net.set_default_drain(DrainPolicy::Budgeted);
    net
}

fn step_to(net: &mut Network, cycle: u64) {
    net.run_until(Cycle(cycle)).unwrap();
}

/// Only written flits travel: the head leaves while the body is still being written, and the network goes idle
/// (skippable) while the writer pauses.
#[test]
fn open_packet_injects_only_written_flits() {
    let mut net = line(3);
    net.add_drain_room(NodeId(2), 0, 100);
    net.enqueue_open(NodeId(0), NodeId(2), 5, 7, 0);
    assert_eq!(net.source_queue_flits(NodeId(0)), 0);
    assert_eq!(net.open_flits_left(NodeId(0)), 5);
    net.release_flits(NodeId(0), 2);
    step_to(&mut net, 40);
    let drained: Vec<u16> = net.take_drained_flits(NodeId(2)).map(|f| f.seq).collect();
    assert_eq!(drained, vec![0, 1], "the two written flits arrive, no more");
    assert!(net.flits_in_network() == 0 && net.is_idle(), "nothing written is waiting: the network may skip time");
    assert!(net.skip_idle_to(Cycle(100)));
    net.release_flits(NodeId(0), 3);
    assert_eq!(net.open_flits_left(NodeId(0)), 0);
    assert!(!net.is_idle());
    step_to(&mut net, 140);
    let rest: Vec<_> = net.take_drained_flits(NodeId(2)).collect();
    assert_eq!(rest.iter().map(|f| f.seq).collect::<Vec<_>>(), vec![2, 3, 4]);
    assert!(rest[0].cycle.0 > 100 && rest.iter().all(|f| f.payload == 7 && f.src == NodeId(0)));
    let d = rest[2].delivery.expect("the tail carries the record");
    assert_eq!((d.flits, d.created), (5, Cycle(0)));
    assert!(rest[..2].iter().all(|f| f.delivery.is_none()));
    // A new packet may be queued now that the open one is complete.
    net.enqueue_open(NodeId(0), NodeId(2), 1, 8, 0);
}

#[test]
#[should_panic(expected = "still writing a packet")]
fn a_second_packet_waits_for_the_open_one() {
    let mut net = line(2);
    net.enqueue_open(NodeId(0), NodeId(1), 3, 0, 0);
    net.release_flits(NodeId(0), 2);
    net.enqueue_open(NodeId(0), NodeId(1), 1, 0, 0);
}

/// A full class stops the node's draining (head of line), back-pressuring the network; room given back resumes
/// it in the same cycle, and heads marked HEAD_NEEDS_NO_ROOM pass without room.
#[test]
fn budgeted_drain_stops_at_the_room_and_resumes() {
    let mut net = line(2);
    let (a, b) = (NodeId(0), NodeId(1));
    net.add_drain_room(b, 3, 4);
    net.enqueue(a, b, 10, 1, 3 | HEAD_NEEDS_NO_ROOM);
    step_to(&mut net, 60);
    let first: Vec<u16> = net.take_drained_flits(b).map(|f| f.seq).collect();
    assert_eq!(first, vec![0, 1, 2, 3, 4], "the head is free, then four flits of room");
    assert_eq!(net.drain_room(b, 3), 0);
    // What the path buffers (ejection 2, router input 4, source side) is held back, not lost.
    assert_eq!(net.flits_in_network() + net.source_queue_flits(a), 5);
    net.add_drain_room(b, 3, 2);
    let at = net.now().0;
    step_to(&mut net, at + 1);
    let one: Vec<_> = net.take_drained_flits(b).collect();
    assert_eq!(one.len(), 1, "one flit per cycle");
    assert_eq!(one[0].cycle.0, at, "drained in the cycle the room came back");
    step_to(&mut net, at + 30);
    assert_eq!(net.take_drained_flits(b).count(), 1);
    net.add_drain_room(b, 3, 100);
    step_to(&mut net, at + 60);
    let last: Vec<_> = net.take_drained_flits(b).collect();
    assert_eq!(last.len(), 3);
    assert!(last[2].delivery.is_some() && net.is_empty());
}

/// Classes are independent, and tags at or beyond DRAIN_CLASSES drain freely.
#[test]
fn classes_are_separate_and_high_tags_are_free() {
    let mut net = line(2);
    let (a, b) = (NodeId(0), NodeId(1));
    net.add_drain_room(b, 1, 1);
    net.enqueue(a, b, 1, 10, 1);
    net.enqueue(a, b, 1, 11, 1);
    net.enqueue(a, b, 2, 12, DRAIN_CLASSES as u64);
    step_to(&mut net, 40);
    let got: Vec<u64> = net.take_drained_flits(b).map(|f| f.payload).collect();
    assert_eq!(got, vec![10], "the second packet of class 1 has no room, and blocks the one behind it");
    net.add_drain_room(b, 1, 1);
    step_to(&mut net, 80);
    let got: Vec<u64> = net.take_drained_flits(b).map(|f| f.payload).collect();
    assert_eq!(got, vec![11, 12, 12]);
}

/// Debug stepping (every node and router every cycle) and the calendar give the same drains.
#[test]
fn visiting_everything_changes_nothing() {
    let run = |all: bool| {
        let mut net = line(4);
        net.set_visit_all(all);
        for n in 0..4 {
            net.add_drain_room(NodeId(n), 0, 3);
        }
        let mut log = Vec::new();
        for t in 0..400u64 {
            if t % 7 == 0 {
                let (s, d) = ((t / 7 % 4) as u32, ((t / 7 + 1 + t / 21 % 3) % 4) as u32);
                if net.open_flits_left(NodeId(s)) == 0 && s != d {
                    net.enqueue_open(NodeId(s), NodeId(d), 6, t, 0);
                }
            }
            for n in 0..4 {
                if net.open_flits_left(NodeId(n)) > 0 && net.source_queue_flits(NodeId(n)) < 2 {
                    net.release_flits(NodeId(n), 1);
                }
                if t % 5 == n as u64 {
                    net.add_drain_room(NodeId(n), 0, 1);
                }
                log.extend(net.take_drained_flits(NodeId(n)).map(|f| (n, f.cycle, f.payload, f.seq)));
            }
            net.step().unwrap();
        }
        log
    };
    let fast = run(false);
    assert!(fast.len() > 50, "{}", fast.len());
    assert_eq!(fast, run(true));
}

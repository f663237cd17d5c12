import HummingbirdCore
import NIOCore
import NIOHTTPTypes
import QuireSystem
import Synchronization

/// What keeps idle, slow and numerous connections from taking the server down: deadlines on
/// every connection and a cap on how many are open, per peer and in all.
///
/// - A connection must send a complete request head within ``Limits/headerTimeout`` of being
///   accepted or of its last response (the header and keep-alive idle timeout); a request's
///   body must arrive within ``Limits/requestTimeout`` of its head. Otherwise it is closed.
///   A response being written (an event stream, a long download) has no deadline.
/// - At most ``Limits/total`` connections are kept, ``Limits/perPeer`` from one address. A
///   connection over either cap makes room by closing the oldest *idle* connection (no
///   request in progress) of that peer, or of all; when none is idle the new one is closed.
///   So a flood of idle or half-sent connections never keeps out a request that arrives whole.
/// - Past ``Limits/total`` plus a margin the server stops accepting at all (the accept
///   queue waits in the kernel) until a connection closes: the caps stay below the
///   descriptor limit, which the server raises from its soft to its hard value at start.
///   SwiftNIO's accept backoff waits a second after an `EMFILE`/`ENFILE` instead of retrying.
/// - The kernel's queue of connections not yet accepted is as long as the system allows
///   (``listenBacklog``), so a burst of connections (hundreds of requests at once, a flood of
///   idle ones opened again) waits there for its turn: with a short queue, a connection that
///   finds it full loses its SYN, and its client waits 1 s (then 3 s, 7 s…) to send it again.
final class ConnectionGuard: Sendable {
  /// The length asked for the listening socket's queue of connections not yet accepted. Linux
  /// caps it at `net.core.somaxconn` (4,096 by default since 5.4); they hold no descriptor of
  /// the server's until accepted.
  static let listenBacklog = 65_535

  /// The deadlines and caps.
  struct Limits: Sendable {
    var headerTimeout: TimeAmount = .seconds(15)
    var requestTimeout: TimeAmount = .seconds(60)
    var total: Int
    var perPeer: Int

    /// Caps that leave room below `descriptorLimit` for the files, pipes and watches the
    /// server itself opens.
    init(descriptorLimit: Int) {
      total = max(64, min(8192, (descriptorLimit - 512) / 2))
      perPeer = max(48, total * 3 / 4)
    }
  }

  let limits: Limits

  private struct Entry {
    var channel: any Channel
    var peer: String
    var busy: Bool
  }

  private struct State {
    var entries: [Int: Entry] = [:]  // keyed by admission number: lower is older
    var perPeer: [String: Int] = [:]
    var next = 0
    /// Admission numbers, oldest first, from `head` on: what eviction looks through, so that
    /// finding the oldest idle connection does not go through every entry on each admission
    /// (under a flood that is thousands of entries, thousands of times a second, on the event
    /// loop). Numbers of closed connections leave it as they reach the front, or when it has
    /// grown to twice the entries.
    var order: [Int] = []
    var head = 0

    mutating func compact() {
      if head > 0 && head * 2 >= order.count {
        order.removeFirst(head)
        head = 0
      }
      if order.count - head > 2 * entries.count + 1024 {
        order = order[head...].filter { entries[$0] != nil }
        head = 0
      }
    }
  }

  private let state = Mutex(State())

  init(limits: Limits) {
    self.limits = limits
  }

  /// The number of connections held now.
  var count: Int { state.withLock { $0.entries.count } }

  /// Whether the server should accept another connection now (see the type's description).
  var isAccepting: Bool { count < limits.total + 64 }

  /// Registers a new connection; returns its number. Closes what must go to make room.
  func admit(_ channel: any Channel) -> Int {
    let peer = channel.remoteAddress?.ipAddress ?? "?"
    var victims: [any Channel] = []
    let id = state.withLock { state in
      let id = state.next
      state.next += 1
      state.entries[id] = Entry(channel: channel, peer: peer, busy: false)
      state.order.append(id)
      state.compact()
      state.perPeer[peer, default: 0] += 1
      if state.perPeer[peer, default: 0] > limits.perPeer {
        victims.append(Self.evict(&state, of: peer, sparing: id) ?? channel)
      } else if state.entries.count > limits.total {
        victims.append(Self.evict(&state, of: nil, sparing: id) ?? channel)
      }
      return id
    }
    for victim in victims { victim.close(promise: nil) }
    return id
  }

  /// The oldest idle connection (of `peer`, or any), taken out of the books; `nil` when none is idle.
  private static func evict(_ state: inout State, of peer: String?, sparing newest: Int) -> (any Channel)? {
    var index = state.head
    var oldest: Int?
    while index < state.order.count {
      let id = state.order[index]
      if let entry = state.entries[id] {
        if !entry.busy && id != newest && (peer == nil || entry.peer == peer) {
          oldest = id
          break
        }
      } else if index == state.head {
        state.head += 1  // closed: it leaves the front
      }
      index += 1
    }
    guard let oldest, let entry = state.entries.removeValue(forKey: oldest) else { return nil }
    if state.order[state.head] == oldest { state.head += 1 }
    state.perPeer[entry.peer, default: 1] -= 1
    if state.perPeer[entry.peer] == 0 { state.perPeer[entry.peer] = nil }
    return entry.channel
  }

  /// Marks a connection as handling a request (not to be closed for room) or idle.
  func setBusy(_ id: Int, _ busy: Bool) {
    state.withLock { state in state.entries[id]?.busy = busy }
  }

  /// Takes a closed connection out of the books.
  func remove(_ id: Int) {
    state.withLock { state in
      guard let entry = state.entries.removeValue(forKey: id) else { return }
      state.perPeer[entry.peer, default: 1] -= 1
      if state.perPeer[entry.peer] == 0 { state.perPeer[entry.peer] = nil }
    }
  }

  /// The handler each connection's pipeline gets (after HTTP decoding).
  func makeHandler() -> any RemovableChannelHandler { Handler(guarding: self) }

  /// Hummingbird's accept gate: accepting stops while ``isAccepting`` is false.
  struct AcceptGate: AvailableConnectionsDelegate {
    let guarded: ConnectionGuard
    mutating func connectionOpened() {}
    mutating func connectionClosed() {}
    func isAcceptingNewConnections() -> Bool { guarded.isAccepting }
  }

  /// One connection's deadlines and its entry in the books.
  final class Handler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    let guarded: ConnectionGuard
    private var id: Int?
    private var deadline: Scheduled<Void>?
    /// Requests whose response has not ended yet (HTTP/1.1 pipelining may queue several).
    private var inProgress = 0
    private var readingBody = false

    init(guarding: ConnectionGuard) { self.guarded = guarding }

    func handlerAdded(context: ChannelHandlerContext) {
      if context.channel.isActive { start(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
      start(context)
      context.fireChannelActive()
    }

    private func start(_ context: ChannelHandlerContext) {
      guard id == nil else { return }
      id = guarded.admit(context.channel)
      arm(context, guarded.limits.headerTimeout)
    }

    func channelInactive(context: ChannelHandlerContext) {
      finish()
      context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) { finish() }

    private func finish() {
      deadline?.cancel()
      deadline = nil
      if let id { guarded.remove(id) }
      id = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
      switch unwrapInboundIn(data) {
      case .head:
        inProgress += 1
        readingBody = true
        if let id { guarded.setBusy(id, true) }
        arm(context, guarded.limits.requestTimeout)
      case .body: break
      case .end:
        readingBody = false
        disarm()
      }
      context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
      if case .end = unwrapOutboundIn(data) {
        inProgress = max(0, inProgress - 1)
        if inProgress == 0, !readingBody {
          if let id { guarded.setBusy(id, false) }
          arm(context, guarded.limits.headerTimeout)
        }
      }
      context.write(data, promise: promise)
    }

    /// Closes the connection after `delay` unless re-armed or disarmed first.
    private func arm(_ context: ChannelHandlerContext, _ delay: TimeAmount) {
      deadline?.cancel()
      let channel = context.channel
      deadline = context.eventLoop.assumeIsolatedUnsafeUnchecked().scheduleTask(in: delay) { channel.close(promise: nil) }
    }

    private func disarm() {
      deadline?.cancel()
      deadline = nil
    }
  }
}

@available(*, unavailable)
extension ConnectionGuard.Handler: Sendable {}

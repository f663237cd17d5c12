internal import CWayland
import Foundation
import QuireSystem
import QuireTypes
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// The owner of one libwayland display connection: it lives on the connection's thread, and
/// everything that touches the display and its objects happens in its methods, called from
/// ``run()`` (events) or from closures that ``WaylandConnection`` posts to that thread.
///
/// It binds the compositor's data-control manager (`ext-data-control-v1` when offered, else
/// `zwlr_data_control_manager_v1`) and the first seat's data device: no surface, no window,
/// no focus. As an owner it offers each representation of the items as a MIME type and, when
/// a client asks (`send`), loads only that one (off this thread) and streams it into the
/// client's pipe from a thread of its own. As a reader it follows the device's offers and
/// their MIME types, and receives one type at a time through a pipe read off this thread.
final class DataControlLoop {
  let connection: WaylandConnection
  private let display: OpaquePointer
  private let globals: Globals
  private let manager: OpaquePointer
  private let device: OpaquePointer
  private let kind: cwayland_protocol
  /// `ext-data-control-v1` or `wlr-data-control-unstable-v1`.
  let protocolName: String
  /// Whether the compositor's protocol has the primary selection (wlr's from version 2).
  private let hasPrimary: Bool

  /// What each kind of object's events are, kept as the proxy's user data.
  private enum Role: Int {
    case device = 1
    case source = 2
    case offer = 3
  }

  /// Offers the compositor introduced, with their MIME types.
  private var offers: [OpaquePointer: [String]] = [:]
  /// Each selection's current offer (none when empty), and a number that changes with it.
  private var current: [DisplaySelection: OpaquePointer] = [:]
  private var serials: [DisplaySelection: Int] = [:]
  /// A source of this process: its items and what it offers.
  private struct Source {
    let providers: [ItemProvider]
    let offered: [SelectionTargets.Offered]
  }
  private var sources: [OpaquePointer: Source] = [:]
  /// The source each selection this process holds is set to.
  private var owned: [DisplaySelection: OpaquePointer] = [:]
  /// Selections whose events are this process's own doing (counted when it set them).
  private var attributing: Set<DisplaySelection> = []
  /// Set once the compositor went away: the display is freed, and work posted later fails at once.
  private var closed = false

  /// How long a client may leave the pipe full before the transfer is dropped.
  static let sendStallTimeout: Duration = .seconds(30)
  /// Threads that stream representations into clients' pipes and read other programs' pipes:
  /// both wait on other programs, which would starve Dispatch's few global threads.
  static let transfers = BlockingLane("quire.wayland.transfers", limit: 8)

  /// The registry's globals (name, interface, version), kept up to date by its events.
  private final class Globals {
    var list: [(name: UInt32, interface: String, version: UInt32)] = []
  }

  init(connection: WaylandConnection) throws {
    self.connection = connection
    let name = connection.display
    guard let display = wl_display_connect(name) else {
      throw QuireError(
        .fileMissing,
        "Cannot connect to the Wayland compositor '\(name)' (from WAYLAND_DISPLAY): no compositor answers there. Start one, fix WAYLAND_DISPLAY, or set QUIRE_PASTEBOARD=quire."
      )
    }
    // Until `self` is whole, every failure disconnects here.
    func fail(_ error: QuireError) -> QuireError {
      wl_display_disconnect(display)
      return error
    }
    let globals = Globals()
    guard let registry = cwayland_get_registry(display) else {
      throw fail(QuireError(.libraryFailure, "The Wayland compositor '\(name)' gave no registry."))
    }
    _ = wl_proxy_add_dispatcher(
      registry,
      { data, _, opcode, _, arguments in
        guard let data, let arguments, opcode == UInt32(CWAYLAND_REGISTRY_GLOBAL) else { return 0 }
        let globals = Unmanaged<Globals>.fromOpaque(data).takeUnretainedValue()
        let interface = cwayland_argument_string(arguments, 1).map { String(cString: $0) } ?? ""
        globals.list.append((cwayland_argument_uint(arguments, 0), interface, cwayland_argument_uint(arguments, 2)))
        return 0
      }, Unmanaged.passUnretained(globals).toOpaque(), nil)
    guard wl_display_roundtrip(display) >= 0 else {
      throw fail(QuireError(.fileMissing, "The Wayland compositor '\(name)' closed the connection while Quire set up."))
    }
    // ext-data-control-v1 when offered, else wlroots' protocol.
    var chosen: (kind: cwayland_protocol, global: (name: UInt32, interface: String, version: UInt32))?
    for kind in [CWAYLAND_EXT, CWAYLAND_WLR] where chosen == nil {
      let interface = cwayland_manager_name(kind).map { String(cString: $0) } ?? ""
      if let global = globals.list.first(where: { $0.interface == interface }) { chosen = (kind, global) }
    }
    guard let chosen else {
      throw fail(
        QuireError(
          .unsupportedType,
          "The Wayland compositor '\(name)' offers no data-control protocol (ext-data-control-v1 or wlr-data-control), which Quire needs to use its clipboard without a window."
        ))
    }
    guard let seatGlobal = globals.list.first(where: { $0.interface == "wl_seat" }), let seat = cwayland_bind_seat(registry, seatGlobal.name)
    else {
      throw fail(QuireError(.unsupportedType, "The Wayland compositor '\(name)' has no seat, so it has no clipboard."))
    }
    let version = min(chosen.global.version, cwayland_manager_version(chosen.kind))
    guard let manager = cwayland_bind_manager(registry, chosen.global.name, chosen.kind, version),
      let device = cwayland_get_device(manager, seat, chosen.kind)
    else {
      throw fail(QuireError(.libraryFailure, "The Wayland compositor '\(name)' refused Quire's data-control device."))
    }
    self.display = display
    self.globals = globals
    self.manager = manager
    self.device = device
    kind = chosen.kind
    protocolName = chosen.kind == CWAYLAND_EXT ? "ext-data-control-v1" : "wlr-data-control-unstable-v1"
    hasPrimary = chosen.kind == CWAYLAND_EXT || version >= 2
    listen(device, as: .device)
    // The device's first events say what the selections hold now: not changes.
    attributing = Set(DisplaySelection.allCases)
    defer { attributing = [] }
    guard wl_display_roundtrip(display) >= 0 else {
      wl_display_disconnect(display)
      throw QuireError(.fileMissing, "The Wayland compositor '\(name)' closed the connection while Quire set up.")
    }
  }

  /// Sends `proxy`'s events to ``handle(_:role:opcode:arguments:)``.
  private func listen(_ proxy: OpaquePointer, as role: Role) {
    _ = wl_proxy_add_dispatcher(
      proxy,
      { data, target, opcode, _, arguments in
        guard let data, let target else { return 0 }
        let loop = Unmanaged<DataControlLoop>.fromOpaque(data).takeUnretainedValue()
        let proxy = OpaquePointer(target)
        guard let role = wl_proxy_get_user_data(proxy).flatMap({ Role(rawValue: Int(bitPattern: $0)) }) else { return 0 }
        loop.handle(proxy, role: role, opcode: opcode, arguments: arguments.map { UnsafePointer($0) })
        return 0
      }, Unmanaged.passUnretained(self).toOpaque(), UnsafeMutableRawPointer(bitPattern: role.rawValue))
  }

  // MARK: The loop

  /// Serves requests and posted work until the compositor goes away.
  func run() {
    let socket = wl_display_get_fd(display)
    while !closed {
      for work in connection.takeWork() { work(self) }
      if closed { break }
      var failed = false
      while wl_display_prepare_read(display) != 0 {
        if wl_display_dispatch_pending(display) < 0 {
          failed = true
          break
        }
      }
      if failed {
        shutDown()
        break
      }
      _ = wl_display_flush(display)
      let ready = SystemCalls.waitReadable([socket, connection.wakeDescriptor].map(FileDescriptor.init(rawValue:)), milliseconds: 1000)
      if ready[0] {
        if wl_display_read_events(display) < 0 {
          shutDown()
          break
        }
      } else {
        wl_display_cancel_read(display)
      }
      if wl_display_dispatch_pending(display) < 0 {
        shutDown()
        break
      }
    }
    // Closed: work posted before callers saw the failure still gets its answer (an error).
    while true {
      _ = SystemCalls.waitReadable([FileDescriptor(rawValue: connection.wakeDescriptor)], milliseconds: -1)
      for work in connection.takeWork() { work(self) }
    }
  }

  private func lostConnection() -> QuireError {
    QuireError(
      .fileMissing,
      "The connection to the Wayland compositor '\(connection.display)' was lost (the compositor went away). Copy again once it is back.")
  }

  private func shutDown() {
    guard !closed else { return }
    closed = true
    connection.published.publishFailure(lostConnection())
    offers = [:]
    current = [:]
    sources = [:]
    owned = [:]
    wl_display_disconnect(display)
  }

  /// A round trip: once it returns, every event the compositor sent before is handled.
  func synchronize() throws {
    guard !closed else { throw lostConnection() }
    if wl_display_roundtrip(display) < 0 {
      shutDown()
      throw lostConnection()
    }
  }

  // MARK: Events

  private func handle(_ proxy: OpaquePointer, role: Role, opcode: UInt32, arguments: UnsafePointer<wl_argument>?) {
    switch (role, Int(opcode)) {
    case (.device, Int(CWAYLAND_DEVICE_DATA_OFFER)):
      guard let arguments, let offer = cwayland_argument_proxy(arguments, 0) else { return }
      listen(offer, as: .offer)
      offers[offer] = []
    case (.device, Int(CWAYLAND_DEVICE_SELECTION)):
      selectionChanged(.clipboard, to: arguments.flatMap { cwayland_argument_proxy($0, 0) })
    case (.device, Int(CWAYLAND_DEVICE_PRIMARY_SELECTION)):
      selectionChanged(.primary, to: arguments.flatMap { cwayland_argument_proxy($0, 0) })
    case (.device, Int(CWAYLAND_DEVICE_FINISHED)):
      // The seat went away: the device is inert, and so is this connection.
      shutDown()
    case (.offer, Int(CWAYLAND_OFFER_OFFER)):
      guard let arguments, let type = cwayland_argument_string(arguments, 0) else { return }
      offers[proxy]?.append(String(cString: type))
    case (.source, Int(CWAYLAND_SOURCE_SEND)):
      guard let arguments else { return }
      let fd = cwayland_argument_fd(arguments, 1)
      guard let type = cwayland_argument_string(arguments, 0) else { return SystemCalls.release(FileDescriptor(rawValue: fd)) }
      serve(proxy, mimeType: String(cString: type), into: FileDescriptor(rawValue: fd))
    case (.source, Int(CWAYLAND_SOURCE_CANCELLED)):
      sourceCancelled(proxy)
    default:
      break
    }
  }

  private func selectionChanged(_ selection: DisplaySelection, to offer: OpaquePointer?) {
    if let old = current[selection], old != offer {
      offers[old] = nil
      cwayland_offer_destroy(old, kind)
    }
    current[selection] = offer
    serials[selection, default: 0] += 1
    // Changes this process made were counted when it made them.
    if !attributing.contains(selection) { connection.published.publishChange(selection) }
  }

  private func sourceCancelled(_ source: OpaquePointer) {
    if let selection = owned.first(where: { $0.value == source })?.key {
      owned[selection] = nil
      connection.published.publishOwnership(selection, providers: nil, countsAsChange: false)
    }
    destroySource(source)
  }

  private func destroySource(_ source: OpaquePointer) {
    sources[source] = nil
    cwayland_source_destroy(source, kind)
  }

  // MARK: Owning

  func own(_ selection: DisplaySelection, providers: [ItemProvider]) throws {
    guard !closed else { throw lostConnection() }
    guard selection == .clipboard || hasPrimary else {
      throw QuireError(
        .unsupportedType, "The Wayland compositor '\(connection.display)' has no primary selection (its wlr-data-control is version 1).")
    }
    let primary: Int32 = selection == .primary ? 1 : 0
    let old = owned.removeValue(forKey: selection)
    if providers.isEmpty && old == nil {
      // Another program's selection is left alone, as X11's owner gives up only its own.
      connection.published.publishOwnership(selection, providers: nil, countsAsChange: true)
      return
    }
    var source: OpaquePointer?
    if !providers.isEmpty {
      guard let made = cwayland_create_source(manager, kind) else { throw lostConnection() }
      listen(made, as: .source)
      let offered = SelectionTargets.offered(for: providers).filter { $0.source != .meta }
      for target in offered { cwayland_source_offer(made, kind, target.name) }
      sources[made] = Source(providers: providers, offered: offered)
      owned[selection] = made
      source = made
    }
    cwayland_set_selection(device, kind, source, primary)
    if let old { destroySource(old) }
    attributing.insert(selection)
    defer { attributing.remove(selection) }
    try synchronize()
    if let source, owned[selection] != source {
      throw QuireError(
        .inUse, "The Wayland compositor did not give Quire the \(selection.rawValue) selection; another program took it at the same moment. Copy again.")
    }
    connection.published.publishOwnership(selection, providers: providers.isEmpty ? nil : providers, countsAsChange: true)
  }

  func ownership(of selection: DisplaySelection) throws -> SelectionOwnership {
    try synchronize()
    if let source = owned[selection], let mine = sources[source] { return .this(mine.providers) }
    return current[selection] == nil ? .none : .other
  }

  // MARK: Serving

  /// Answers a client's `send`: loads the representation behind `mimeType` (only now, off
  /// this thread) and streams it into the client's pipe, then closes it. A type the source
  /// does not offer, or one whose load fails, is an empty answer (the protocol has no refusal).
  private func serve(_ source: OpaquePointer, mimeType: String, into pipe: FileDescriptor) {
    guard let mine = sources[source], let offered = mine.offered.first(where: { $0.name == mimeType }) else {
      return SystemCalls.release(pipe)
    }
    let stall = Int32(clamping: Int64(Self.sendStallTimeout.timeInterval * 1000))
    SelectionLoading.start(offered.source, from: mine.providers) { result in
      switch result {
      case .failure:
        SystemCalls.release(pipe)
      case .success(.data(let data)):
        BlockingExecutor.shared.submit(in: Self.transfers) {
          defer { SystemCalls.release(pipe) }
          _ = data.withUnsafeBytes { SystemCalls.writeToPipe(pipe, $0, stallMilliseconds: stall) }
        }
      case .success(.file(let url, let provider, _)):
        // The file is valid while this closure runs: streamed from here, 1 MiB at a time.
        defer { SystemCalls.release(pipe) }
        try? provider.fileReadCoordinator.coordinateReading(itemAt: url, timeout: provider.loadTimeout) { url in
          try Self.stream(url, into: pipe, stallMilliseconds: stall)
        }
      }
    }
  }

  /// Copies the file at `url` into `pipe` in 1 MiB chunks.
  private static func stream(_ url: URL, into pipe: FileDescriptor, stallMilliseconds: Int32) throws {
    let file: FileDescriptor
    switch SystemCalls.open(FilePath(url.path), O_RDONLY, mode: 0) {
    case .success(let opened): file = opened
    case .failure(let error): throw TransferErrors.opening(url, error)
    }
    defer { SystemCalls.release(file) }
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
    defer { buffer.deallocate() }
    while case .success(let count) = SystemCalls.read(file, into: buffer), count > 0 {
      if case .failure = SystemCalls.writeToPipe(pipe, UnsafeRawBufferPointer(rebasing: buffer[0..<count]), stallMilliseconds: stallMilliseconds) {
        return
      }
    }
  }

  // MARK: Reading

  /// The MIME types another program offers on `selection` now, with the offer's number.
  func offeredTypes(of selection: DisplaySelection) throws -> (serial: Int, types: [String]) {
    try synchronize()
    guard let offer = current[selection] else { return (serials[selection] ?? 0, []) }
    return (serials[selection] ?? 0, offers[offer] ?? [])
  }

  /// A read of one MIME type from another program.
  struct ReadRequest: Sendable {
    let selection: DisplaySelection
    let mimeType: String
    /// The offer it was listed from: a later offer is another program's, and refused.
    let serial: Int
    /// Where the bytes go; in memory when nil.
    let file: URL?
    let stallTimeout: Duration
    let complete: @Sendable (Result<Data, any Error>) -> Void
  }

  /// Asks the offer's owner to write `request`'s type into a pipe, and reads the pipe on a
  /// thread of its own until the owner closes it.
  func startRead(_ request: ReadRequest) {
    guard !closed else { return request.complete(.failure(lostConnection())) }
    guard let offer = current[request.selection], serials[request.selection] == request.serial else {
      return request.complete(.failure(QuireError(.fileMissing, "The \(request.selection.rawValue) selection changed while pasting; paste again.")))
    }
    guard offers[offer]?.contains(request.mimeType) == true else {
      return request.complete(
        .failure(QuireError(.unsupportedType, "The program holding the \(request.selection.rawValue) selection does not offer \(request.mimeType).")))
    }
    let ends: (read: FileDescriptor, write: FileDescriptor)
    switch SystemCalls.pipe() {
    case .success(let made): ends = made
    case .failure(let failure):
      return request.complete(
        .failure(QuireError(QuireError.Code(failure.errno), "Cannot make a pipe to paste through (\(failure.errno)).", cause: failure)))
    }
    // libwayland sends a copy of the write end; ours is closed once the request is out, so
    // the read ends when the owner closes its copy.
    cwayland_offer_receive(offer, kind, request.mimeType, ends.write.rawValue)
    _ = wl_display_flush(display)
    SystemCalls.release(ends.write)
    BlockingExecutor.shared.submit(in: Self.transfers) { Self.readPipe(ends.read, request) }
  }

  /// Reads `pipe` to its end into the request's file or memory, then closes it.
  private static func readPipe(_ pipe: FileDescriptor, _ request: ReadRequest) {
    defer { SystemCalls.release(pipe) }
    var output: FileDescriptor?
    if let file = request.file {
      switch SystemCalls.open(FilePath(file.path), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: 0o600) {
      case .success(let fd): output = fd
      case .failure(let failure):
        return request.complete(
          .failure(
            QuireError(
              QuireError.Code(failure.errno, for: .create), "Cannot write the pasted data to '\(file.path)' (\(failure.errno)).", url: file,
              cause: failure)))
      }
    }
    defer { if let output { SystemCalls.release(output) } }
    let milliseconds = Int32(clamping: Int64(request.stallTimeout.timeInterval * 1000))
    var data = Data()
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
    defer { buffer.deallocate() }
    while true {
      guard SystemCalls.waitReadable([pipe], milliseconds: milliseconds)[0] else {
        return request.complete(
          .failure(
            QuireError(
              .timedOut,
              "The program holding the \(request.selection.rawValue) selection did not deliver \(request.mimeType) within \(request.stallTimeout). It may be stuck; copy again."
            )))
      }
      guard case .success(let count) = SystemCalls.read(pipe, into: buffer) else {
        return request.complete(.failure(QuireError(.systemCallFailed, "Cannot read the pasted \(request.mimeType) from its pipe.")))
      }
      if count == 0 { break }
      let chunk = UnsafeRawBufferPointer(rebasing: buffer[0..<count])
      if let output {
        if case .failure(let error) = SystemCalls.writeAll(output, chunk) {
          return request.complete(
            .failure(QuireError(.systemCallFailed, "Cannot write the pasted data to '\(request.file?.path ?? "")': \(error).", cause: error)))
        }
      } else {
        data.append(contentsOf: chunk)
      }
    }
    request.complete(.success(data))
  }
}

internal import CXCB
import Foundation
import QuireSystem
import QuireTypes
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// The owner of one libxcb connection: it lives on the connection's thread, and everything
/// that touches the connection happens in its methods, called from ``run()`` (events, timers)
/// or from closures that ``DisplayConnection`` posts to that thread.
///
/// As an owner it answers `SelectionRequest`s: `TARGETS`, `TIMESTAMP`, `MULTIPLE` and
/// `SAVE_TARGETS` itself, every other target by loading the representation behind it from the
/// item provider only then (off this thread), and data larger than the server's request limit
/// in `INCR` chunks. As a reader it converts one target at a time into a property of its own
/// window, following `INCR`. XFixes selection events count ownership changes.
final class SelectionLoop {
  let connection: DisplayConnection
  private let c: OpaquePointer
  private let window: xcb_window_t
  private var atoms: [String: xcb_atom_t] = [:]
  private var atomNames: [xcb_atom_t: String] = [:]
  private let xfixesFirstEvent: UInt8
  /// Answers up to this size go in one `ChangeProperty`; larger ones by `INCR`.
  let incrThreshold: Int
  /// The size of each `INCR` chunk.
  let chunkSize: Int
  /// Events read while waiting for something else, handled next.
  private var stashed: [UnsafeMutablePointer<xcb_generic_event_t>] = []

  /// A selection this process owns.
  private struct Owned {
    let providers: [ItemProvider]
    let offered: [SelectionTargets.Offered]
    let timestamp: xcb_timestamp_t
  }
  private var owned: [xcb_atom_t: Owned] = [:]
  /// Set once the X server went away: `c` is freed, and work posted later fails at once.
  private var closed = false

  /// The largest answer size allowed by `--incr-threshold` in tests (see ``DisplayConnection``).
  init(connection: DisplayConnection) throws {
    self.connection = connection
    var screenNumber: Int32 = 0
    guard let c = xcb_connect(connection.display, &screenNumber) else {
      throw QuireError(.libraryFailure, "Cannot connect to the X display '\(connection.display)'.")
    }
    if xcb_connection_has_error(c) != 0 {
      xcb_disconnect(c)
      throw QuireError(
        .fileMissing,
        "Cannot open the X display '\(connection.display)' (from DISPLAY): no X server answers there. Start one, fix DISPLAY, or unset DISPLAY to use Quire's own pasteboard."
      )
    }
    self.c = c
    var screens = xcb_setup_roots_iterator(xcb_get_setup(c))
    for _ in 0..<max(0, Int(screenNumber)) where screens.rem > 1 { xcb_screen_next(&screens) }
    guard let screen = screens.data?.pointee else {
      xcb_disconnect(c)
      throw QuireError(.libraryFailure, "The X display '\(connection.display)' has no screen.")
    }
    window = xcb_generate_id(c)
    var mask = XCB_EVENT_MASK_PROPERTY_CHANGE.rawValue
    xcb_create_window(
      c, UInt8(XCB_COPY_FROM_PARENT), window, screen.root, 0, 0, 1, 1, 0, UInt16(XCB_WINDOW_CLASS_INPUT_OUTPUT.rawValue),
      screen.root_visual, XCB_CW_EVENT_MASK.rawValue, &mask)
    // The server's request limit in bytes (BIG-REQUESTS raises it when the server has it),
    // less room for the ChangeProperty request's own fields.
    let maximum = Int(xcb_get_maximum_request_length(c)) * 4
    incrThreshold = max(4096, maximum - 1024)
    chunkSize = min(incrThreshold, 1 << 20)
    // XFixes tells of every ownership change, ours and others'.
    let version = xcb_xfixes_query_version(c, 5, 0)
    if let reply = xcb_xfixes_query_version_reply(c, version, nil) { free(reply) }
    guard let fixes = xcb_get_extension_data(c, cxcb_xfixes_extension()), fixes.pointee.present != 0 else {
      xcb_disconnect(c)
      throw QuireError(.unsupportedType, "The X display '\(connection.display)' lacks the XFixes extension, which Quire needs to follow the clipboard.")
    }
    xfixesFirstEvent = fixes.pointee.first_event
    let events =
      XCB_XFIXES_SELECTION_EVENT_MASK_SET_SELECTION_OWNER.rawValue
      | XCB_XFIXES_SELECTION_EVENT_MASK_SELECTION_WINDOW_DESTROY.rawValue
      | XCB_XFIXES_SELECTION_EVENT_MASK_SELECTION_CLIENT_CLOSE.rawValue
    for selection in DisplaySelection.allCases {
      xcb_xfixes_select_selection_input(c, window, atom(selection.rawValue), events)
    }
    xcb_flush(c)
    if xcb_connection_has_error(c) != 0 {
      xcb_disconnect(c)
      throw QuireError(.libraryFailure, "The X display '\(connection.display)' closed the connection while Quire set up.")
    }
  }

  // MARK: The loop

  /// Serves requests and posted work until the X server goes away.
  func run() {
    let socket = xcb_get_file_descriptor(c)
    while true {
      for work in connection.takeWork() { work(self) }
      handlePendingEvents()
      expireDeadlines()
      if xcb_connection_has_error(c) != 0 {
        shutDown()
        break
      }
      xcb_flush(c)
      let timeout = nextDeadline().map { max(0, min(1000, Int32($0.timeIntervalSinceNow * 1000) + 1)) } ?? 1000
      _ = SystemCalls.waitReadable([socket, connection.wakeDescriptor].map(FileDescriptor.init(rawValue:)), milliseconds: timeout)
    }
    // Closed: work posted before callers saw the failure still gets its answer (an error).
    while true {
      _ = SystemCalls.waitReadable([FileDescriptor(rawValue: connection.wakeDescriptor)], milliseconds: -1)
      for work in connection.takeWork() { work(self) }
    }
  }

  private func shutDown() {
    let error = QuireError(
      .fileMissing,
      "The connection to the X display '\(connection.display)' was lost (the X server went away). Copy again once the display is back.")
    connection.publishFailure(error)
    activeRead?.request.complete(.failure(error))
    activeRead = nil
    for read in reads { read.complete(.failure(error)) }
    reads = []
    pendingSave?.done(false)
    pendingSave = nil
    for event in stashed { free(event) }
    stashed = []
    jobs = [:]
    outgoing = [:]
    closed = true
    xcb_disconnect(c)
  }

  private func handlePendingEvents() {
    while true {
      let event: UnsafeMutablePointer<xcb_generic_event_t>
      if !stashed.isEmpty {
        event = stashed.removeFirst()
      } else if let next = xcb_poll_for_event(c) {
        event = next
      } else {
        return
      }
      defer { free(event) }
      handle(UnsafeRawPointer(event))
    }
  }

  /// A round trip: once it returns, every event the server sent before is handled.
  func synchronize() throws {
    guard !closed else { throw lostConnection() }
    let cookie = xcb_get_input_focus(c)
    guard let reply = xcb_get_input_focus_reply(c, cookie, nil) else { throw lostConnection() }
    free(reply)
    handlePendingEvents()
  }

  private func lostConnection() -> QuireError {
    QuireError(.fileMissing, "The connection to the X display '\(connection.display)' was lost.")
  }

  private func handle(_ event: UnsafeRawPointer) {
    let type = event.load(as: UInt8.self) & 0x7f
    switch type {
    case UInt8(XCB_SELECTION_REQUEST):
      serve(event.load(as: xcb_selection_request_event_t.self))
    case UInt8(XCB_SELECTION_CLEAR):
      let clear = event.load(as: xcb_selection_clear_event_t.self)
      guard let selection = selection(clear.selection), owned.removeValue(forKey: clear.selection) != nil else { return }
      connection.publishOwnership(selection, providers: nil, countsAsChange: false)
    case UInt8(XCB_SELECTION_NOTIFY):
      selectionNotified(event.load(as: xcb_selection_notify_event_t.self))
    case UInt8(XCB_PROPERTY_NOTIFY):
      propertyChanged(event.load(as: xcb_property_notify_event_t.self))
    case xfixesFirstEvent &+ UInt8(XCB_XFIXES_SELECTION_NOTIFY):
      let notify = event.load(as: xcb_xfixes_selection_notify_event_t.self)
      guard let selection = selection(notify.selection) else { return }
      // Our own taking was counted when it happened.
      if notify.subtype == UInt8(XCB_XFIXES_SELECTION_EVENT_SET_SELECTION_OWNER.rawValue) && notify.owner == window { return }
      connection.publishChange(selection)
    default:
      break  // errors of requests whose requestor went away, and events nobody asked for
    }
  }

  // MARK: Atoms

  func atom(_ name: String) -> xcb_atom_t {
    if let known = atoms[name] { return known }
    guard !closed else { return xcb_atom_t(XCB_NONE) }
    let cookie = xcb_intern_atom(c, 0, UInt16(name.utf8.count), name)
    guard let reply = xcb_intern_atom_reply(c, cookie, nil) else { return xcb_atom_t(XCB_NONE) }
    defer { free(reply) }
    atoms[name] = reply.pointee.atom
    atomNames[reply.pointee.atom] = name
    return reply.pointee.atom
  }

  func name(of atom: xcb_atom_t) -> String? {
    if let known = atomNames[atom] { return known }
    guard atom != xcb_atom_t(XCB_NONE), !closed else { return nil }
    let cookie = xcb_get_atom_name(c, atom)
    guard let reply = xcb_get_atom_name_reply(c, cookie, nil) else { return nil }
    defer { free(reply) }
    let length = Int(xcb_get_atom_name_name_length(reply))
    let bytes = UnsafeRawBufferPointer(start: xcb_get_atom_name_name(reply), count: length)
    let name = String(decoding: bytes, as: UTF8.self)
    atoms[name] = atom
    atomNames[atom] = name
    return name
  }

  private func selection(_ atom: xcb_atom_t) -> DisplaySelection? {
    DisplaySelection.allCases.first { self.atom($0.rawValue) == atom }
  }

  /// A server timestamp, from a zero-length append to a property of our window (ICCCM §2.1:
  /// owners must not use CurrentTime).
  private func serverTime() throws -> xcb_timestamp_t {
    let property = atom("_QUIRE_TIMESTAMP")
    xcb_change_property(c, UInt8(XCB_PROP_MODE_APPEND.rawValue), window, property, XCB_ATOM_STRING.rawValue, 8, 0, nil)
    xcb_flush(c)
    while let event = xcb_wait_for_event(c) {
      let raw = UnsafeRawPointer(event)
      if raw.load(as: UInt8.self) & 0x7f == UInt8(XCB_PROPERTY_NOTIFY) {
        let notify = raw.load(as: xcb_property_notify_event_t.self)
        if notify.window == window && notify.atom == property {
          free(event)
          return notify.time
        }
      }
      stashed.append(event)
    }
    throw lostConnection()
  }

  // MARK: Owning

  func own(_ selection: DisplaySelection, providers: [ItemProvider]) throws {
    guard !closed else { throw lostConnection() }
    let selectionAtom = atom(selection.rawValue)
    guard !providers.isEmpty else {
      if let was = owned.removeValue(forKey: selectionAtom) {
        xcb_set_selection_owner(c, xcb_window_t(XCB_NONE), selectionAtom, was.timestamp)
      }
      xcb_flush(c)
      connection.publishOwnership(selection, providers: nil, countsAsChange: true)
      return
    }
    let time = try serverTime()
    xcb_set_selection_owner(c, window, selectionAtom, time)
    let cookie = xcb_get_selection_owner(c, selectionAtom)
    guard let reply = xcb_get_selection_owner_reply(c, cookie, nil) else { throw lostConnection() }
    let owner = reply.pointee.owner
    free(reply)
    guard owner == window else {
      throw QuireError(.inUse, "The X server did not give Quire the \(selection.rawValue) selection; another program took it at the same moment. Copy again.")
    }
    owned[selectionAtom] = Owned(providers: providers, offered: SelectionTargets.offered(for: providers), timestamp: time)
    connection.publishOwnership(selection, providers: providers, countsAsChange: true)
  }

  func ownership(of selection: DisplaySelection) throws -> SelectionOwnership {
    try synchronize()
    let selectionAtom = atom(selection.rawValue)
    let cookie = xcb_get_selection_owner(c, selectionAtom)
    guard let reply = xcb_get_selection_owner_reply(c, cookie, nil) else { throw lostConnection() }
    let owner = reply.pointee.owner
    free(reply)
    if owner == xcb_window_t(XCB_NONE) { return .none }
    if owner == window, let mine = owned[selectionAtom] { return .this(mine.providers) }
    return .other
  }

  // MARK: Serving

  /// One answer: the property's type, format and bytes.
  struct Answer: Sendable {
    let type: xcb_atom_t
    let format: UInt8
    let bytes: Data
  }

  /// A request being answered: one target, or the pairs of a `MULTIPLE`.
  private final class ServeJob {
    let request: xcb_selection_request_event_t
    let property: xcb_atom_t
    let isMultiple: Bool
    var pairs: [(target: xcb_atom_t, property: xcb_atom_t, answer: Answer?)]
    var remaining: Int
    init(request: xcb_selection_request_event_t, property: xcb_atom_t, isMultiple: Bool, pairs: [(xcb_atom_t, xcb_atom_t)]) {
      self.request = request
      self.property = property
      self.isMultiple = isMultiple
      self.pairs = pairs.map { ($0.0, $0.1, nil) }
      remaining = pairs.count
    }
  }
  private var jobs: [Int: ServeJob] = [:]
  private var nextJob = 0

  private func serve(_ request: xcb_selection_request_event_t) {
    // Obsolete clients leave the property out: the target names it then (ICCCM §2.2).
    let property = request.property == xcb_atom_t(XCB_NONE) ? request.target : request.property
    guard request.owner == window, let mine = owned[request.selection],
      request.time == xcb_timestamp_t(XCB_CURRENT_TIME) || request.time >= mine.timestamp
    else { return notify(request, property: xcb_atom_t(XCB_NONE)) }
    var pairs: [(xcb_atom_t, xcb_atom_t)] = [(request.target, property)]
    let isMultiple = request.target == atom("MULTIPLE")
    if isMultiple {
      guard let list = readProperty(window: request.requestor, property: property, delete: false), list.format == 32 else {
        return notify(request, property: xcb_atom_t(XCB_NONE))
      }
      let values = list.bytes.withUnsafeBytes { Array($0.bindMemory(to: UInt32.self)) }
      pairs = stride(from: 0, to: values.count - 1, by: 2).map { (values[$0], values[$0 + 1]) }
    }
    let job = ServeJob(request: request, property: property, isMultiple: isMultiple, pairs: pairs)
    let id = nextJob
    nextJob += 1
    jobs[id] = job
    for (index, pair) in pairs.enumerated() {
      startAnswer(target: pair.0, of: mine, requestTime: request.time) { [connection] answer in
        connection.post { loop in loop.answered(job: id, pair: index, answer) }
      }
    }
    if job.pairs.isEmpty { finish(id) }
  }

  /// Makes the answer for `target`: at once for the owner's own targets, else by loading the
  /// representation behind it on another thread. `done` gets nil when the target cannot be made.
  private func startAnswer(
    target: xcb_atom_t, of mine: Owned, requestTime: xcb_timestamp_t, done: @escaping @Sendable (Answer?) -> Void
  ) {
    guard let targetName = name(of: target), let offered = mine.offered.first(where: { $0.name == targetName }) else {
      return done(nil)
    }
    let type = atom(offered.type)
    switch offered.source {
    case .meta:
      switch targetName {
      case "TARGETS":
        let list = mine.offered.map { atom($0.name) }
        done(Answer(type: XCB_ATOM_ATOM.rawValue, format: 32, bytes: list.withUnsafeBytes { Data($0) }))
      case "TIMESTAMP":
        done(Answer(type: XCB_ATOM_INTEGER.rawValue, format: 32, bytes: withUnsafeBytes(of: mine.timestamp) { Data($0) }))
      case "SAVE_TARGETS":
        // Asked of an owner, it is answered with an empty NULL property (clipboard manager spec).
        done(Answer(type: atom("NULL"), format: 32, bytes: Data()))
      default:
        done(nil)  // MULTIPLE inside MULTIPLE
      }
    case .representation, .latin1, .uriList:
      Self.startLoad(offered.source, from: mine.providers, type: type, done: done)
    }
  }

  /// Loads the bytes behind `source` (see ``SelectionLoading``): the answer, or nil when
  /// they cannot be had.
  private static func startLoad(
    _ source: SelectionTargets.Source, from providers: [ItemProvider], type: xcb_atom_t, done: @escaping @Sendable (Answer?) -> Void
  ) {
    SelectionLoading.loadData(source, from: providers) { result in
      done((try? result.get()).map { Answer(type: type, format: 8, bytes: $0) })
    }
  }

  private func answered(job id: Int, pair index: Int, _ answer: Answer?) {
    guard let job = jobs[id] else { return }
    job.pairs[index].answer = answer
    job.remaining -= 1
    if job.remaining == 0 { finish(id) }
  }

  private func finish(_ id: Int) {
    guard let job = jobs.removeValue(forKey: id) else { return }
    if !job.isMultiple {
      guard let answer = job.pairs.first?.answer else { return notify(job.request, property: xcb_atom_t(XCB_NONE)) }
      put(answer, on: job.request.requestor, property: job.property)
      return notify(job.request, property: job.property)
    }
    // MULTIPLE: each pair answered in its property; a pair that failed gets None as its
    // property in the list, which is written back (ICCCM §2.6.2).
    var list: [UInt32] = []
    for pair in job.pairs {
      if let answer = pair.answer { put(answer, on: job.request.requestor, property: pair.property) }
      list += [pair.target, pair.answer == nil ? xcb_atom_t(XCB_NONE) : pair.property]
    }
    list.withUnsafeBytes { bytes in
      _ = xcb_change_property(
        c, UInt8(XCB_PROP_MODE_REPLACE.rawValue), job.request.requestor, job.property, atom("ATOM_PAIR"), 32, UInt32(list.count),
        bytes.baseAddress)
    }
    notify(job.request, property: job.property)
  }

  private func notify(_ request: xcb_selection_request_event_t, property: xcb_atom_t) {
    cxcb_send_selection_notify(c, request.requestor, request.selection, request.target, property, request.time)
    xcb_flush(c)
  }

  /// An answer too large for one request, sent in chunks as the requestor deletes each.
  private struct Outgoing {
    let type: xcb_atom_t
    let bytes: Data
    var offset = 0
    var deadline: Date
  }
  private struct OutgoingKey: Hashable {
    let window: xcb_window_t
    let property: xcb_atom_t
  }
  private var outgoing: [OutgoingKey: Outgoing] = [:]
  /// How long a requestor may take to delete an INCR chunk before the transfer is dropped.
  static let outgoingStallTimeout: TimeInterval = 30

  private func put(_ answer: Answer, on requestor: xcb_window_t, property: xcb_atom_t) {
    if answer.format == 8 && answer.bytes.count > incrThreshold {
      // INCR (ICCCM §2.7.2): the property says the size; each deletion asks for the next chunk.
      var mask = XCB_EVENT_MASK_PROPERTY_CHANGE.rawValue
      xcb_change_window_attributes(c, requestor, XCB_CW_EVENT_MASK.rawValue, &mask)
      var size = UInt32(clamping: answer.bytes.count)
      xcb_change_property(c, UInt8(XCB_PROP_MODE_REPLACE.rawValue), requestor, property, atom("INCR"), 32, 1, &size)
      outgoing[OutgoingKey(window: requestor, property: property)] = Outgoing(
        type: answer.type, bytes: answer.bytes, deadline: Date().addingTimeInterval(Self.outgoingStallTimeout))
      return
    }
    let units = answer.format == 32 ? answer.bytes.count / 4 : answer.bytes.count
    answer.bytes.withUnsafeBytes { bytes in
      _ = xcb_change_property(
        c, UInt8(XCB_PROP_MODE_REPLACE.rawValue), requestor, property, answer.type, answer.format, UInt32(units), bytes.baseAddress)
    }
  }

  private func sendNextChunk(_ key: OutgoingKey) {
    guard var transfer = outgoing[key] else { return }
    let end = min(transfer.offset + chunkSize, transfer.bytes.count)
    let chunk = transfer.bytes[transfer.offset..<end]
    chunk.withUnsafeBytes { bytes in
      _ = xcb_change_property(
        c, UInt8(XCB_PROP_MODE_REPLACE.rawValue), key.window, key.property, transfer.type, 8, UInt32(bytes.count), bytes.baseAddress)
    }
    if chunk.isEmpty {
      // The zero-length chunk ends the transfer.
      outgoing[key] = nil
      if !outgoing.keys.contains(where: { $0.window == key.window }) {
        var none = XCB_EVENT_MASK_NO_EVENT.rawValue
        xcb_change_window_attributes(c, key.window, XCB_CW_EVENT_MASK.rawValue, &none)
      }
    } else {
      transfer.offset = end
      transfer.deadline = Date().addingTimeInterval(Self.outgoingStallTimeout)
      outgoing[key] = transfer
    }
    xcb_flush(c)
  }

  private func propertyChanged(_ event: xcb_property_notify_event_t) {
    if event.window == window {
      if event.state == UInt8(XCB_PROPERTY_NEW_VALUE.rawValue), event.atom == readAtom, activeRead?.isIncremental == true {
        readNextChunk()
      }
      return
    }
    if event.state == UInt8(XCB_PROPERTY_DELETE.rawValue) {
      sendNextChunk(OutgoingKey(window: event.window, property: event.atom))
    }
  }

  // MARK: Reading

  /// A read of one target from another owner.
  struct ReadRequest {
    let selection: DisplaySelection
    let target: String
    /// Where the bytes go; in memory when nil.
    let file: URL?
    let stallTimeout: Duration
    let complete: @Sendable (Result<(type: String, data: Data), any Error>) -> Void
  }
  private struct ActiveRead {
    let request: ReadRequest
    var isIncremental = false
    var type: xcb_atom_t = xcb_atom_t(XCB_NONE)
    var data = Data()
    var descriptor: Int32 = -1
    var deadline: Date
  }
  private var reads: [ReadRequest] = []
  private var activeRead: ActiveRead?
  private var readAtom: xcb_atom_t { atom("_QUIRE_SELECTION") }

  func enqueueRead(_ request: ReadRequest) {
    guard !closed else { return request.complete(.failure(lostConnection())) }
    reads.append(request)
    startNextRead()
  }

  private func startNextRead() {
    guard activeRead == nil, !reads.isEmpty else { return }
    let request = reads.removeFirst()
    var read = ActiveRead(request: request, deadline: Date().addingTimeInterval(request.stallTimeout.timeInterval))
    if let file = request.file {
      switch SystemCalls.open(FilePath(file.path), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: 0o600) {
      case .success(let fd): read.descriptor = fd.rawValue
      case .failure(let failure):
        request.complete(
          .failure(
            QuireError(
              QuireError.Code(failure.errno, for: .create), "Cannot write the pasted data to '\(file.path)' (\(failure.errno)).", url: file, cause: failure)))
        return startNextRead()
      }
    }
    activeRead = read
    xcb_delete_property(c, window, readAtom)
    xcb_convert_selection(c, window, atom(request.selection.rawValue), atom(request.target), readAtom, xcb_timestamp_t(XCB_CURRENT_TIME))
    xcb_flush(c)
  }

  private func endRead(_ result: Result<(type: String, data: Data), any Error>) {
    guard let read = activeRead else { return }
    activeRead = nil
    if read.descriptor >= 0 { SystemCalls.release(FileDescriptor(rawValue: read.descriptor)) }
    xcb_delete_property(c, window, readAtom)
    read.request.complete(result)
    startNextRead()
  }

  private func selectionNotified(_ event: xcb_selection_notify_event_t) {
    if event.selection == atom("CLIPBOARD_MANAGER"), event.target == atom("SAVE_TARGETS"), let save = pendingSave {
      pendingSave = nil
      return save.done(event.property != xcb_atom_t(XCB_NONE))
    }
    guard let read = activeRead, event.requestor == window, event.selection == atom(read.request.selection.rawValue),
      event.target == atom(read.request.target)
    else { return }
    guard event.property != xcb_atom_t(XCB_NONE) else {
      return endRead(
        .failure(
          QuireError(
            .unsupportedType,
            "The program holding the \(read.request.selection.rawValue) selection refused to give it as \(read.request.target). Copy again, or paste another type."
          )))
    }
    guard let answer = readProperty(window: window, property: event.property, delete: true) else {
      return endRead(.failure(lostConnection()))
    }
    if answer.type == atom("INCR") {
      // The deletion above asked for the first chunk; each new value is the next one.
      activeRead?.isIncremental = true
      activeRead?.deadline = Date().addingTimeInterval(read.request.stallTimeout.timeInterval)
      return
    }
    activeRead?.type = answer.type
    if let failure = append(answer.bytes) { return endRead(.failure(failure)) }
    finishRead()
  }

  private func readNextChunk() {
    guard let read = activeRead, let chunk = readProperty(window: window, property: readAtom, delete: true) else { return }
    if chunk.bytes.isEmpty {
      // An empty chunk ends the transfer (one with the type None is a deletion, not a chunk).
      if chunk.type != xcb_atom_t(XCB_NONE) { finishRead() }
      return
    }
    activeRead?.type = chunk.type
    activeRead?.deadline = Date().addingTimeInterval(read.request.stallTimeout.timeInterval)
    if let failure = append(chunk.bytes) { endRead(.failure(failure)) }
  }

  private func append(_ bytes: Data) -> QuireError? {
    guard var read = activeRead else { return nil }
    if read.descriptor < 0 {
      read.data.append(bytes)
      activeRead = read
      return nil
    }
    if case .failure(let error) = SystemCalls.writeAll(FileDescriptor(rawValue: read.descriptor), bytes) {
      return QuireError(.systemCallFailed, "Cannot write the pasted data to '\(read.request.file?.path ?? "")': \(error).")
    }
    return nil
  }

  private func finishRead() {
    guard let read = activeRead else { return }
    endRead(.success((type: name(of: read.type) ?? "", data: read.data)))
  }

  /// Reads a whole property (deleting it when asked); nil when the connection broke.
  private func readProperty(window: xcb_window_t, property: xcb_atom_t, delete: Bool) -> Answer? {
    let cookie = xcb_get_property(c, delete ? 1 : 0, window, property, XCB_GET_PROPERTY_TYPE_ANY.rawValue, 0, UInt32.max / 4)
    guard let reply = xcb_get_property_reply(c, cookie, nil) else { return nil }
    defer { free(reply) }
    let length = Int(xcb_get_property_value_length(reply))
    let bytes = length > 0 ? Data(bytes: xcb_get_property_value(reply), count: length) : Data()
    return Answer(type: reply.pointee.type, format: reply.pointee.format, bytes: bytes)
  }

  // MARK: Clipboard manager

  private struct PendingSave {
    let deadline: Date
    let done: @Sendable (Bool) -> Void
  }
  private var pendingSave: PendingSave?

  /// Asks the clipboard manager to take `selection`'s data (the freedesktop clipboard manager
  /// spec): it converts `SAVE_TARGETS` of `CLIPBOARD_MANAGER`, fetches our targets while we
  /// keep serving, and answers with a `SelectionNotify`.
  func saveTargets(_ selection: DisplaySelection, timeout: Duration, done: @escaping @Sendable (Bool) -> Void) {
    guard !closed else { return done(false) }
    let manager = atom("CLIPBOARD_MANAGER")
    let cookie = xcb_get_selection_owner(c, manager)
    guard let reply = xcb_get_selection_owner_reply(c, cookie, nil) else { return done(false) }
    let managerWindow = reply.pointee.owner
    free(reply)
    guard managerWindow != xcb_atom_t(XCB_NONE), let mine = owned[atom(selection.rawValue)], pendingSave == nil else {
      return done(false)
    }
    let targets = mine.offered.filter { $0.source != .meta }.map { atom($0.name) }
    let property = atom("_QUIRE_SAVE_TARGETS")
    targets.withUnsafeBytes { bytes in
      _ = xcb_change_property(
        c, UInt8(XCB_PROP_MODE_REPLACE.rawValue), window, property, XCB_ATOM_ATOM.rawValue, 32, UInt32(targets.count), bytes.baseAddress)
    }
    xcb_convert_selection(c, window, manager, atom("SAVE_TARGETS"), property, xcb_timestamp_t(XCB_CURRENT_TIME))
    xcb_flush(c)
    pendingSave = PendingSave(deadline: Date().addingTimeInterval(timeout.timeInterval), done: done)
  }

  // MARK: Deadlines

  private func nextDeadline() -> Date? {
    ([activeRead?.deadline, pendingSave?.deadline].compactMap { $0 } + outgoing.values.map(\.deadline)).min()
  }

  private func expireDeadlines() {
    let now = Date()
    if let read = activeRead, read.deadline <= now {
      endRead(
        .failure(
          QuireError(
            .timedOut,
            "The program holding the \(read.request.selection.rawValue) selection did not deliver \(read.request.target) within \(read.request.stallTimeout). It may be stuck; copy again."
          )))
    }
    if let save = pendingSave, save.deadline <= now {
      pendingSave = nil
      save.done(false)
    }
    for (key, transfer) in outgoing where transfer.deadline <= now {
      outgoing[key] = nil
      var none = XCB_EVENT_MASK_NO_EVENT.rawValue
      xcb_change_window_attributes(c, key.window, XCB_CW_EVENT_MASK.rawValue, &none)
    }
  }
}

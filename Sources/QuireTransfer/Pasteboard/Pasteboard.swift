public import Foundation
import QuireSystem
public import QuireTypes
import Synchronization
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// Where the desktop pasteboards (`general` and `primary`) live.
///
/// Chosen in this order unless forced (``Pasteboard/init(name:rootFolder:backend:environment:)``,
/// `quire copy --backend`, or the environment variable `QUIRE_PASTEBOARD=wayland|x11|quire`):
/// the Wayland compositor's clipboard when `WAYLAND_DISPLAY` names one that offers data-control,
/// then the X11 selections when `DISPLAY` is set (XWayland's, on a Wayland desktop), then
/// Quire's own store.
public enum PasteboardBackend: String, Sendable, CaseIterable {
  /// The Wayland compositor's clipboard and primary selection through `ext-data-control-v1`
  /// or `zwlr_data_control_manager_v1`, with no window (`WAYLAND_DISPLAY`).
  case wayland
  /// The X11 `CLIPBOARD` and `PRIMARY` selections (`DISPLAY`).
  case x11
  /// Quire's own store under `$XDG_RUNTIME_DIR`, seen by Quire processes only.
  case quire

  /// The environment variable that forces a backend: `QUIRE_PASTEBOARD`.
  public static let environmentVariable = "QUIRE_PASTEBOARD"
}

/// A pasteboard (`UIPasteboard`): the general one and named ones.
///
/// On a Wayland desktop whose compositor offers data-control (`WAYLAND_DISPLAY` set: sway,
/// Hyprland, river, KDE Plasma and other wlroots-based or recent compositors) the general
/// pasteboard is the compositor's clipboard and `primary` its primary selection, with no
/// window and no XWayland, as `wl-copy` and `wl-paste` use them. On an X11 desktop
/// (`$DISPLAY` set) the general pasteboard is the X11 `CLIPBOARD` selection and the one named
/// `primary` is `PRIMARY`, shared with every program on the display (XWayland bridges them on
/// Wayland desktops without data-control, such as GNOME's). ``PasteboardBackend`` tells the
/// order of choice and how to force one. Setting items takes the selection and offers each
/// representation as a target (its MIME type, plus `UTF8_STRING`, `STRING`, `TEXT` and
/// `text/plain;charset=utf-8` for text and `text/uri-list` for files); a representation is
/// loaded only when a program asks for it, and large ones go in `INCR` chunks. Items another
/// program holds come back as one provider whose representations are its targets, fetched
/// when loaded. When the process leaves (``materializePromises()``) a clipboard manager takes
/// the items when one runs; otherwise they are kept for Quire processes as below.
///
/// Elsewhere (no display, another name, or a `rootFolder` given) the pasteboard is shared by
/// one user's Quire processes through `$XDG_RUNTIME_DIR/quire/pasteboards/<name>/` (folders
/// 0700, files 0600, never through symbolic links; a folder of another user or with loose
/// permissions is refused), and every access holds a `flock(2)` on the folder's `lock` file.
///
/// Setting items there writes only their list: each representation visible to all processes
/// is *promised*. While the process that set them lives, others fetch representations on
/// demand from it over a Unix domain socket in the folder; when it exits cleanly
/// (``materializePromises()``, which `quire` calls on its way out) the representations are
/// written into the folder. Items set `localOnly` never leave the process: others see the
/// pasteboard empty. Representations visible to the own process only are never offered to
/// others. Expired items are gone for everyone.
public final class Pasteboard: Sendable {
  /// The pasteboard's name, e.g. "general".
  public let name: String
  let folder: PasteboardFolder
  private let usesLocalItems: Bool
  /// The desktop connection (X display or Wayland compositor) and selection, for a desktop pasteboard.
  private let desktop: (connection: any DesktopConnection, selection: DisplaySelection)?
  /// Where this pasteboard lives.
  public let backend: PasteboardBackend
  /// One line saying why the desktop's first choice could not be used and what stands in,
  /// when that happened (a Wayland compositor without data-control); nil otherwise. `quire`
  /// prints it on standard error.
  public let fallbackNote: String?
  /// The clock every question "has it expired?" is put to: the system's, or a test's.
  private let clock: @Sendable () -> Date

  /// The name of the general pasteboard (the X11 `CLIPBOARD` selection on a desktop).
  public static let generalName = "general"
  /// The name of the pasteboard that is the X11 `PRIMARY` selection on a desktop.
  public static let primaryName = "primary"

  /// The general pasteboard: the desktop's clipboard (Wayland's, else X11's; see
  /// ``PasteboardBackend``) when no `rootFolder` is given, else Quire's own.
  ///
  /// - Parameter rootFolder: The folder holding Quire's pasteboards; by default
  ///   `$XDG_RUNTIME_DIR/quire/pasteboards`. Giving one makes a Quire-only pasteboard there.
  /// - Throws: ``QuireError`` `.permissionDenied` when a folder is not private to this user;
  ///   `.fileMissing` when `$DISPLAY` names a display no X server answers on.
  public static func general(rootFolder: URL? = nil) throws -> Pasteboard {
    try Pasteboard(name: generalName, rootFolder: rootFolder)
  }

  /// A named pasteboard, made when it does not exist. `general` and `primary` are the
  /// desktop's clipboard and primary selection (Wayland data-control, else X11's `CLIPBOARD`
  /// and `PRIMARY`; see ``PasteboardBackend``) when no `rootFolder` is given.
  ///
  /// - Parameters:
  ///   - name: Letters, digits, `.`, `_` and `-`, not starting with a dot, at most 64 bytes.
  ///   - rootFolder: The folder holding the pasteboards; by default
  ///     `$XDG_RUNTIME_DIR/quire/pasteboards` (`/tmp/quire-runtime-<uid>` when unset).
  /// - Throws: ``QuireError`` `.invalidArgument` for a bad name; `.permissionDenied` when
  ///   the root or the pasteboard folder is a symbolic link, belongs to another user or lets
  ///   other users in; `.fileMissing` when `$DISPLAY` names a display no X server answers on;
  ///   `.invalidArgument` when `QUIRE_PASTEBOARD` names no backend.
  public convenience init(name: String, rootFolder: URL? = nil) throws {
    try self.init(name: name, rootFolder: rootFolder, backend: nil)
  }

  /// A named pasteboard whose desktop backend is chosen by you or by the environment.
  ///
  /// - Parameters:
  ///   - name: As for ``init(name:rootFolder:)``; only `general` and `primary` are desktop pasteboards.
  ///   - rootFolder: As for ``init(name:rootFolder:)``; giving one makes a Quire-only pasteboard.
  ///   - backend: The backend to use, or nil for `QUIRE_PASTEBOARD` when set, else the first
  ///     that works of Wayland data-control (`WAYLAND_DISPLAY`), X11 (`DISPLAY`) and Quire's
  ///     own store. A Wayland compositor without data-control (GNOME's, weston) is passed over
  ///     with ``fallbackNote`` saying so.
  ///   - environment: Where `WAYLAND_DISPLAY`, `DISPLAY` and `QUIRE_PASTEBOARD` are read.
  /// - Throws: As ``init(name:rootFolder:)``; `.invalidArgument` when `QUIRE_PASTEBOARD` names
  ///   no backend, or a forced backend's variable is not set; `.unsupportedType` when Wayland
  ///   is forced and the compositor offers no data-control.
  public convenience init(
    name: String, rootFolder: URL?, backend: PasteboardBackend?, environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws {
    guard rootFolder == nil, Self.selection(named: name) != nil else {
      try self.init(name: name, rootFolder: rootFolder, usesLocalItems: true, desktop: nil, backend: .quire, fallbackNote: nil)
      return
    }
    let choice = try Self.chooseDesktop(backend: backend, environment: environment)
    try self.init(
      name: name, rootFolder: rootFolder, usesLocalItems: true, desktop: choice.connection, backend: choice.backend,
      fallbackNote: choice.note)
  }

  /// A named pasteboard on a Wayland compositor of your choice: `general` is its clipboard,
  /// `primary` its primary selection; other names are Quire-only pasteboards.
  ///
  /// - Parameters:
  ///   - name: As for ``init(name:rootFolder:)``.
  ///   - rootFolder: Where Quire-only pasteboards live, and where a desktop pasteboard's items
  ///     are kept for Quire processes when its process exits.
  ///   - waylandDisplay: A socket name in `$XDG_RUNTIME_DIR` (`wayland-1`) or a socket's absolute path.
  /// - Throws: As ``init(name:rootFolder:)``; `.unsupportedType` when the compositor offers no
  ///   data-control protocol or no seat; `.fileMissing` when no compositor answers there.
  public convenience init(name: String, rootFolder: URL?, waylandDisplay: String) throws {
    let connection: (any DesktopConnection)? = Self.selection(named: name) == nil ? nil : try WaylandConnection.to(waylandDisplay)
    try self.init(
      name: name, rootFolder: rootFolder, usesLocalItems: true, desktop: connection, backend: connection == nil ? .quire : .wayland,
      fallbackNote: nil)
  }

  /// A named pasteboard on an X display of your choice: `general` is its `CLIPBOARD`,
  /// `primary` its `PRIMARY`; other names, or a nil `display`, are Quire-only pasteboards.
  ///
  /// - Parameters:
  ///   - name: As for ``init(name:rootFolder:)``.
  ///   - rootFolder: Where Quire-only pasteboards live, and where a desktop pasteboard's items
  ///     are kept for Quire processes when its process exits with no clipboard manager running.
  ///   - display: An X display name such as `:0`, or nil.
  /// - Throws: As ``init(name:rootFolder:)``; `.fileMissing` when no X server answers on `display`.
  public convenience init(name: String, rootFolder: URL?, display: String?) throws {
    var connection: (any DesktopConnection)?
    if let display, !display.isEmpty, Self.selection(named: name) != nil { connection = try DisplayConnection.to(display) }
    try self.init(
      name: name, rootFolder: rootFolder, usesLocalItems: true, desktop: connection, backend: connection == nil ? .quire : .x11,
      fallbackNote: nil)
  }

  /// Makes a Quire-only pasteboard that, with `usesLocalItems` false, reads what another
  /// process would see even for items this process set (for tests of the cross-process paths).
  ///
  /// - Parameters:
  ///   - name: As for ``init(name:rootFolder:)``.
  ///   - rootFolder: As for ``init(name:rootFolder:)``.
  ///   - usesLocalItems: Whether items this process set come back as they were given (true,
  ///     as for every other pasteboard) or as another process sees them (false).
  ///   - now: The time by which this pasteboard tells whether items have expired (in
  ///     ``itemProviders`` and ``materializePromises()``); the system's clock by default. A
  ///     test gives the pasteboard and its other-process view one clock that it moves itself,
  ///     so that it checks an expiry without waiting for it.
  /// - Throws: As ``init(name:rootFolder:)``.
  @_spi(Testing)
  public convenience init(
    name: String, rootFolder: URL?, usesLocalItems: Bool, now: @escaping @Sendable () -> Date = { Date() }
  ) throws {
    try self.init(
      name: name, rootFolder: rootFolder, usesLocalItems: usesLocalItems, desktop: nil, backend: .quire, fallbackNote: nil, now: now)
  }

  init(
    name: String, rootFolder: URL?, usesLocalItems: Bool, desktop connection: (any DesktopConnection)?, backend: PasteboardBackend,
    fallbackNote: String?, now: @escaping @Sendable () -> Date = { Date() }
  ) throws {
    guard Self.isValidName(name) else {
      throw QuireError(
        .invalidArgument,
        "'\(name)' is not a pasteboard name: use letters, digits, '.', '_' and '-' (at most 64, not starting with a dot).")
    }
    let root = try rootFolder ?? Self.defaultRootFolder()
    self.name = name
    folder = PasteboardFolder(root: root, name: name)
    self.usesLocalItems = usesLocalItems
    clock = now
    if let connection, let selection = Self.selection(named: name) {
      desktop = (connection, selection)
      self.backend = backend
    } else {
      desktop = nil
      self.backend = .quire
    }
    self.fallbackNote = fallbackNote
    try folder.prepare()
  }

  /// The desktop selection a pasteboard name stands for: `general` the clipboard, `primary` the primary selection.
  static func selection(named name: String) -> DisplaySelection? {
    switch name {
    case generalName: .clipboard
    case primaryName: .primary
    default: nil
    }
  }

  /// The desktop connection for `general` and `primary`, by ``PasteboardBackend``'s order.
  static func chooseDesktop(
    backend forced: PasteboardBackend?, environment: [String: String]
  ) throws -> (connection: (any DesktopConnection)?, backend: PasteboardBackend, note: String?) {
    var forced = forced
    let variable = PasteboardBackend.environmentVariable
    if forced == nil, let value = environment[variable], !value.isEmpty {
      guard let parsed = PasteboardBackend(rawValue: value.lowercased()) else {
        throw QuireError(.invalidArgument, "\(variable) is '\(value)', which names no pasteboard: use wayland, x11 or quire, or unset it.")
      }
      forced = parsed
    }
    let wayland = environment["WAYLAND_DISPLAY"].flatMap { $0.isEmpty ? nil : $0 }
    let x11 = environmentDisplay(environment)
    switch forced {
    case .quire:
      return (nil, .quire, nil)
    case .x11:
      guard let x11 else { throw QuireError(.invalidArgument, "The X11 pasteboard was asked for, but DISPLAY is not set. Set it, or choose another.") }
      return (try DisplayConnection.to(x11), .x11, nil)
    case .wayland:
      guard let wayland else {
        throw QuireError(.invalidArgument, "The Wayland pasteboard was asked for, but WAYLAND_DISPLAY is not set. Set it, or choose another.")
      }
      return (try WaylandConnection.to(wayland), .wayland, nil)
    case nil:
      var reason: String?
      if let wayland {
        do {
          return (try WaylandConnection.to(wayland), .wayland, nil)
        } catch let error as QuireError where error.code == .unsupportedType || error.code == .fileMissing {
          reason = error.reason
        }
      }
      if let x11 {
        return (try DisplayConnection.to(x11), .x11, reason.map { "\($0) Using the X11 display '\(x11)' (XWayland) instead." })
      }
      return (nil, .quire, reason.map { "\($0) Using Quire's own pasteboard instead, which only Quire programs see." })
    }
  }

  /// `$DISPLAY`, when set and not empty.
  public static func environmentDisplay(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
    environment["DISPLAY"].flatMap { $0.isEmpty ? nil : $0 }
  }

  /// The X display (`DISPLAY`) or Wayland compositor (`WAYLAND_DISPLAY`) whose selection this
  /// pasteboard is, or nil for a Quire-only pasteboard.
  public var displayName: String? { desktop?.connection.display }

  /// The selection this pasteboard is (`CLIPBOARD` or `PRIMARY`, Wayland's clipboard and
  /// primary selection by their X11 names), or nil for a Quire-only one.
  public var selectionName: String? { desktop?.selection.rawValue }

  /// The folder of this pasteboard.
  public var folderURL: URL { folder.url }

  static func isValidName(_ name: String) -> Bool {
    !name.isEmpty && name.utf8.count <= 64 && !name.hasPrefix(".")
      && name.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "._-".unicodeScalars.contains($0)) }
  }

  /// `$XDG_RUNTIME_DIR/quire/pasteboards`, making the `quire` folders (0700) as needed.
  ///
  /// - Parameter environment: Where to read `XDG_RUNTIME_DIR`; when unset, a private
  ///   `/tmp/quire-runtime-<uid>` stands in, as the XDG base directory spec allows.
  public static func defaultRootFolder(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> URL {
    let runtime = XDGBaseDirectory.runtimeDirectory.location(in: environment)
    if !runtime.isFallback {
      var isFolder: ObjCBool = false
      guard FileManager.default.fileExists(atPath: runtime.url.path, isDirectory: &isFolder), isFolder.boolValue else {
        throw QuireError(
          .fileMissing,
          "XDG_RUNTIME_DIR is '\(runtime.url.path)', which is not a folder. Log in again (the session manager makes it) or unset it.",
          url: runtime.url)
      }
    }
    // The fallback /tmp/quire-runtime-<uid> is checked with `quire`, being below /tmp.
    let quire = runtime.url.appendingPathComponent("quire", isDirectory: true)
    try PasteboardFolder.checkPrivateFolder(quire, below: runtime.trustedFolder)
    return quire.appendingPathComponent("pasteboards", isDirectory: true)
  }

  // MARK: Items this process set

  /// What this process set on a pasteboard and still holds.
  struct LocalItems: Sendable {
    let folder: PasteboardFolder
    let generation: String
    let providers: [ItemProvider]
    let expirationDate: Date?
    var server: PromiseServer?
    /// The clock of the pasteboard that set them, for materialising them.
    let clock: @Sendable () -> Date
  }

  /// Folder path → this process's items there.
  static let localItems = Mutex<[String: LocalItems]>([:])

  // MARK: Writing

  /// Replaces the pasteboard's contents with `providers`, one item each.
  ///
  /// - Parameters:
  ///   - providers: The items, each in its representations.
  ///   - localOnly: Keep the items in this process: other processes see an empty pasteboard.
  ///   - expirationDate: When the items disappear, for every process.
  /// - Throws: ``QuireError`` when the folder is refused or cannot be written.
  public func setItemProviders(_ providers: [ItemProvider], localOnly: Bool = false, expirationDate: Date? = nil) throws {
    if let desktop {
      // Local-only items stay in the folder store, where other processes see nothing.
      let offered = localOnly ? [] : providers
      try desktop.connection.own(desktop.selection, providers: offered)
      Self.desktopFolders.withLock { $0[desktop.selection] = offered.isEmpty ? nil : (folder.root, name, expirationDate) }
      if let expirationDate, !offered.isEmpty { scheduleExpiry(of: offered, at: expirationDate) }
      guard localOnly else { return }
    }
    try setFolderItemProviders(providers, localOnly: localOnly, expirationDate: expirationDate)
  }

  /// Fetches of promised files from the process that promised them.
  static let promiseFetches = BlockingLane("quire.pasteboard.fetch", limit: 16)

  /// Gives up the selection at `date` if it still holds `providers`.
  private func scheduleExpiry(of providers: [ItemProvider], at date: Date) {
    guard let desktop else { return }
    BlockingExecutor.shared.submit(after: .seconds(max(0, date.timeIntervalSince(clock())))) {
      let current = desktop.connection.ownedProviders(of: desktop.selection)
      guard let current, current.count == providers.count, zip(current, providers).allSatisfy({ $0 === $1 }) else { return }
      try? desktop.connection.own(desktop.selection, providers: [])
    }
  }

  /// The folder and expiration of each desktop selection this process set, for keeping the
  /// items for Quire processes at exit when no clipboard manager takes them.
  private static let desktopFolders = Mutex<[DisplaySelection: (root: URL, name: String, expirationDate: Date?)]>([:])

  private func setFolderItemProviders(_ providers: [ItemProvider], localOnly: Bool, expirationDate: Date?) throws {
    try folder.withLock(exclusive: true) {
      let old = try? folder.readState()
      if let old { folder.removeGeneration(old) }
      folder.removeLeftovers()
      Self.localItems.withLock { $0.removeValue(forKey: folder.url.path) }?.server?.stop()

      let generation = UUID().uuidString.lowercased()
      var items: [PasteboardState.StoredItem] = []
      if !localOnly {
        items = providers.map { provider in
          PasteboardState.StoredItem(
            suggestedName: provider.suggestedName, expirationDate: expirationDate,
            representations: provider.representations.filter { $0.visibility == .all }.map {
              PasteboardState.StoredRepresentation(typeIdentifier: $0.typeIdentifier, fileName: nil)
            })
        }
      }
      var server: PromiseServer?
      if items.contains(where: { !$0.representations.isEmpty }) {
        let socketName = "\(generation.prefix(8)).sock"
        server = try PromiseServer(socketPath: folder.file(socketName).path, generation: generation, providers: providers)
      }
      let state = PasteboardState(
        changeCount: (old?.changeCount ?? 0) + 1, generation: generation,
        ownerProcess: server == nil ? nil : getpid(),
        socketName: server.map { URL(fileURLWithPath: $0.socketPath).lastPathComponent }, items: items)
      do {
        try folder.writeState(state)
      } catch {
        server?.stop()
        throw error
      }
      let local = LocalItems(
        folder: folder, generation: generation, providers: providers, expirationDate: expirationDate, server: server, clock: clock)
      Self.localItems.withLock { $0[folder.url.path] = local }
    }
  }

  /// Replaces the contents with one item per object, in the forms each writes.
  public func setObjects(_ objects: [any ItemProviderWriting], localOnly: Bool = false, expirationDate: Date? = nil) throws {
    try setItemProviders(objects.map { ItemProvider(object: $0) }, localOnly: localOnly, expirationDate: expirationDate)
  }

  /// Puts `string` on the pasteboard as plain text.
  public func setString(_ string: String) throws { try setObjects([string]) }

  /// Empties the pasteboard (the change count goes up).
  public func clear() throws { try setItemProviders([]) }

  // MARK: Reading

  /// The number of changes made to the pasteboard since it was made.
  ///
  /// On a desktop it counts the selection's changes of owner this process has seen (every
  /// copy by any program; XFixes selection events), starting from 0 when the process first
  /// uses the display.
  public var changeCount: Int {
    get throws {
      if let desktop { return try desktop.connection.changeCount(of: desktop.selection) }
      return try folder.withLock(exclusive: false) { try folder.readState()?.changeCount ?? 0 }
    }
  }

  /// The items, as providers to load from. Items this process set come back as they were
  /// given (every representation); others come from the folder or from the live process
  /// that promised them. Expired items are left out.
  ///
  /// On a desktop: this process's items while it holds the selection; another program's
  /// selection as one provider whose representations are its targets (by MIME type through
  /// the type registry, unknown ones as `dyn.` types), each read from that program when
  /// loaded; when nobody holds it, what a Quire process left in the folder store.
  public var itemProviders: [ItemProvider] {
    get throws {
      if let desktop {
        switch try desktop.connection.ownership(of: desktop.selection) {
        case .this(let providers):
          let expiry = Self.desktopFolders.withLock { $0[desktop.selection]?.expirationDate }
          return PasteboardState.hasExpired(expiry, at: clock()) ? [] : providers
        case .other:
          return try desktop.connection.otherItemProviders(of: desktop.selection)
        case .none:
          break
        }
      }
      let state = try folder.withLock(exclusive: false) { try folder.readState() }
      guard let state else { return [] }
      let now = clock()
      if usesLocalItems, let local = Self.localItems.withLock({ $0[folder.url.path] }), local.generation == state.generation {
        return PasteboardState.hasExpired(local.expirationDate, at: now) ? [] : local.providers
      }
      return state.items.enumerated().compactMap { index, item in
        item.isExpired(at: now) ? nil : remoteProvider(item, index: index, state: state)
      }
    }
  }

  /// The number of items.
  public var numberOfItems: Int { get throws { try itemProviders.count } }

  /// The type identifiers of the first item, highest fidelity first.
  public var types: [String] { get throws { try itemProviders.first?.registeredTypeIdentifiers ?? [] } }

  /// Whether some item has a representation conforming to `type`.
  public func hasItems(conformingTo type: UTType) throws -> Bool {
    try itemProviders.contains { $0.hasRepresentationConforming(toTypeIdentifier: type) }
  }

  /// Whether some item can be read as text.
  public var hasStrings: Bool { get throws { try itemProviders.contains { $0.canLoadObject(ofClass: String.self) } } }

  /// The text of every item that has some.
  /// - Throws: ``QuireError`` when the folder is refused; items whose text cannot be
  ///   loaded are left out.
  public func strings() async throws -> [String] {
    var result: [String] = []
    for provider in try itemProviders where provider.canLoadObject(ofClass: String.self) {
      if let string = try? await provider.loadObject(ofClass: String.self) { result.append(string) }
    }
    return result
  }

  /// The text of the first item that has some.
  public func string() async throws -> String? {
    for provider in try itemProviders where provider.canLoadObject(ofClass: String.self) {
      return try await provider.loadObject(ofClass: String.self)
    }
    return nil
  }

  /// A provider reading an item another process set: materialised representations from the
  /// folder (under the shared lock), promised ones from the live owner.
  private func remoteProvider(
    _ item: PasteboardState.StoredItem, index: Int, state: PasteboardState
  ) -> ItemProvider? {
    let provider = ItemProvider(suggestedName: item.suggestedName)
    let folder = folder
    for representation in item.representations {
      let identifier = representation.typeIdentifier
      if let fileName = representation.fileName {
        let generation = state.generation
        provider.registerFileRepresentation(forTypeIdentifier: identifier) { completion in
          // Under the shared lock, the stored file is hard-linked into a private reading
          // folder; the reader then copies from the link without holding the lock, and a
          // new copy replacing the pasteboard cannot pull the file from under it.
          let reading = folder.file("read-\(UUID().uuidString.lowercased())")
          defer { try? FileManager.default.removeItem(at: reading) }
          do {
            let linked = try folder.withLock(exclusive: false) { () -> URL in
              guard try folder.readState()?.generation == generation else {
                throw QuireError(.fileMissing, "The pasteboard changed while pasting; paste again.")
              }
              // The item folder is checked as every private folder is: a real folder of
              // this user that lets no one else in (a link or another user's folder is refused).
              let itemFolder = folder.file(generation)
              try PasteboardFolder.checkPrivateFolder(itemFolder, below: folder.url)
              let file = itemFolder.appendingPathComponent(fileName)
              switch SystemCalls.lstat(FilePath(file.path)) {
              case .success(let info) where info.st_mode & S_IFMT == S_IFREG && info.st_uid == geteuid(): break
              case .success:
                throw QuireError(
                  .permissionDenied,
                  "Refusing the pasted \(identifier) in '\(itemFolder.path)': '\(fileName)' is not a regular file of yours. Copy it again.", url: file)
              case .failure:
                throw QuireError(.fileMissing, "The pasted \(identifier) is missing from the pasteboard folder. Copy it again.", url: file)
              }
              try PasteboardFolder.checkPrivateFolder(reading)
              let linked = reading.appendingPathComponent(fileName)
              if case .failure(let failure) = SystemCalls.makeHardLink(at: linked.path, to: file.path) {
                throw TransferErrors.opening(file, failure)
              }
              return linked
            }
            completion(linked, nil)
          } catch {
            completion(nil, error)
          }
          return nil
        }
      } else if let socketName = state.socketName {
        // Listed even when the owner is gone, so that loading says why it cannot be had.
        let socketPath = folder.file(socketName).path
        let request = PromiseRequest(generation: state.generation, item: index, typeIdentifier: identifier)
        let owner = state.ownerProcess
        let timeout = provider.loadTimeout
        provider.registerFileRepresentation(forTypeIdentifier: identifier) { completion in
          let progress = Progress(totalUnitCount: 1)
          // The fetch waits on the other process: blocking work, in a lane of its own.
          BlockingExecutor.shared.submit(in: Self.promiseFetches) {
            do {
              let scratch = try ScratchFolder()
              defer { scratch.remove() }
              let target = scratch.url.appendingPathComponent(
                ScratchFolder.fileName(suggestedName: item.suggestedName, type: UTType(identifier)))
              try PromiseClient.fetch(
                socketPath: socketPath, request: request, ownerProcess: owner, into: target,
                stallTimeout: timeout, isCancelled: { progress.isCancelled })
              completion(target, nil)
            } catch {
              completion(nil, error)
            }
          }
          return progress
        }
      }
    }
    return provider.representations.isEmpty ? nil : provider
  }

  // MARK: Owning a desktop selection

  /// Returns once the items this process set are no longer on the pasteboard: on a desktop,
  /// when another program takes the selection (or the X server goes away); at once when this
  /// process holds no selection there, and for Quire-only pasteboards (whose items outlive
  /// the process through ``materializePromises()``).
  ///
  /// `quire copy` serves the desktop clipboard from a background process that waits here, as
  /// `xclip` and `wl-copy` do.
  public func waitUntilItemsAreReplaced() async {
    guard let desktop else { return }
    await desktop.connection.waitUntilLost(desktop.selection)
  }

  // MARK: Leaving

  /// Writes this process's promised representations into the pasteboard folder and stops
  /// serving them, so they outlive the process. Call it before a clean exit (`quire` does).
  ///
  /// Representations whose handler fails are dropped from the pasteboard; the rest are kept.
  /// - Throws: the first failure, after trying every representation.
  ///
  /// A desktop pasteboard this process still holds is handed to the clipboard manager when
  /// one runs (`SAVE_TARGETS`), else written into the folder store the same way.
  public func materializePromises() async throws {
    if let desktop { try await Self.handOver(desktop.connection, desktop.selection) }
    guard let local = Self.localItems.withLock({ $0[folder.url.path] }) else { return }
    try await Self.materialize(local)
  }

  /// Materialises the promises of every pasteboard this process set (see
  /// ``materializePromises()``).
  public static func materializePromises() async throws {
    var firstError: (any Error)?
    let connections: [any DesktopConnection] = WaylandConnection.all + DisplayConnection.all
    for connection in connections {
      for selection in DisplaySelection.allCases {
        do { try await handOver(connection, selection) } catch { firstError = firstError ?? error }
      }
    }
    let all = localItems.withLock { Array($0.values) }
    for local in all {
      do { try await materialize(local) } catch { firstError = firstError ?? error }
    }
    if let firstError { throw firstError }
  }

  /// Hands a selection this process holds to the clipboard manager, or else keeps its items
  /// in the folder store for Quire processes (set there, then materialised).
  private static func handOver(_ connection: any DesktopConnection, _ selection: DisplaySelection) async throws {
    guard let providers = connection.ownedProviders(of: selection), !providers.isEmpty else { return }
    if selection == .clipboard, await connection.handOverToClipboardManager(selection, timeout: clipboardManagerTimeout) { return }
    guard let kept = desktopFolders.withLock({ $0[selection] }) else { return }
    let board = try Pasteboard(
      name: kept.name, rootFolder: kept.root, usesLocalItems: true, desktop: nil, backend: .quire, fallbackNote: nil)
    try board.setFolderItemProviders(providers, localOnly: false, expirationDate: kept.expirationDate)
    try await board.materializePromises()
  }

  /// How long a clipboard manager may take to save the items at exit.
  static let clipboardManagerTimeout: Duration = .seconds(10)

  private static func materialize(_ local: LocalItems) async throws {
    let folder = local.folder
    defer {
      local.server?.stop()
      localItems.withLock { items in
        if items[folder.url.path]?.generation == local.generation { items[folder.url.path]?.server = nil }
      }
    }
    guard local.server != nil else { return }
    // 1. What is promised, read under the shared lock.
    guard let listed = try folder.withLock(exclusive: false, { try folder.readState() }),
      listed.generation == local.generation
    else { return }
    // 2. Every promised representation loaded into a staging folder, holding no lock:
    //    handlers may take long (and may need this process's threads), and other
    //    processes must not wait for them.
    let staging = folder.file("staging-\(local.generation.prefix(8))-\(getpid())")
    try? FileManager.default.removeItem(at: staging)
    try PasteboardFolder.checkPrivateFolder(staging)
    defer { try? FileManager.default.removeItem(at: staging) }
    let now = local.clock()
    var written: Set<String> = []
    var firstError: (any Error)?
    for (index, item) in listed.items.enumerated() where !item.isExpired(at: now) && local.providers.indices.contains(index) {
      for (number, representation) in item.representations.enumerated() where representation.fileName == nil {
        let fileName = "\(index)-\(number)"
        do {
          try await write(local.providers[index], representation.typeIdentifier, to: staging.appendingPathComponent(fileName))
          written.insert(fileName)
        } catch {
          firstError = firstError ?? error
        }
      }
    }
    // 3. Moved into place under the exclusive lock, when the pasteboard still holds these items.
    try folder.withLock(exclusive: true) {
      guard var state = try folder.readState(), state.generation == local.generation else { return }
      let dataFolder = folder.file(state.generation)
      try PasteboardFolder.checkPrivateFolder(dataFolder)
      var kept: [PasteboardState.StoredItem] = []
      for (index, item) in state.items.enumerated() where !item.isExpired(at: now) {
        var item = item
        item.representations = item.representations.enumerated().compactMap { number, representation in
          if representation.fileName != nil { return representation }
          let fileName = "\(index)-\(number)"
          guard written.contains(fileName),
            (try? AtomicFile.move(finished: staging.appendingPathComponent(fileName).path, to: dataFolder.appendingPathComponent(fileName).path).get()) != nil
          else { return nil }
          return PasteboardState.StoredRepresentation(typeIdentifier: representation.typeIdentifier, fileName: fileName)
        }
        kept.append(item)
      }
      state.items = kept
      state.ownerProcess = nil
      if let socket = state.socketName { _ = SystemCalls.remove(folder.file(socket).path) }
      state.socketName = nil
      try folder.writeState(state)
    }
    if let firstError { throw firstError }
  }

  /// Loads one representation and writes it to a new file `target`: bytes as they are,
  /// files copied keeping holes.
  private static func write(_ provider: ItemProvider, _ typeIdentifier: String, to target: URL) async throws {
    guard
      let representation = provider.representations.first(where: { $0.typeIdentifier == typeIdentifier && $0.visibility == .all })
    else { throw QuireError(.unsupportedType, "The item no longer has a \(typeIdentifier) representation.") }
    // Awaited, never waited for on a semaphore: the handler may need the cooperative pool.
    let _: Bool = try await awaitLoad { resume in
      let progress = Progress(totalUnitCount: 1)
      provider.start(representation, progress: progress) { result in
        resume(
          Result<Bool, any Error> {
            switch result {
            case .failure(let error): throw error
            case .success(.data(let data)):
              let fd = try ScratchFolder.create(target)
              defer { SystemCalls.release(FileDescriptor(rawValue: fd)) }
              if case .failure(let error) = SystemCalls.writeAll(FileDescriptor(rawValue: fd), data) { throw TransferErrors.writing(target, error) }
            case .success(.file(let url)):
              try provider.fileReadCoordinator.coordinateReading(itemAt: url, timeout: provider.loadTimeout) {
                try ScratchFolder.copyFile($0, to: target)
              }
            }
            return true
          })
      }
      return progress
    }
  }
}

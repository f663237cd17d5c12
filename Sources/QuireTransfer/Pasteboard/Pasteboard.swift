public import Foundation
public import QuireTypes
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A pasteboard shared by the processes of one user (`UIPasteboard`): the general one and
/// named ones.
///
/// State lives in `$XDG_RUNTIME_DIR/quire/pasteboards/<name>/` (folders 0700, files 0600,
/// never through symbolic links; a folder of another user or with loose permissions is
/// refused), and every access holds a `flock(2)` on the folder's `lock` file.
///
/// Setting items writes only their list: each representation visible to all processes is
/// *promised*. While the process that set them lives, others fetch representations on
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

  /// The name of the general pasteboard.
  public static let generalName = "general"

  /// The general pasteboard.
  ///
  /// - Parameter rootFolder: The folder holding the pasteboards; by default
  ///   `$XDG_RUNTIME_DIR/quire/pasteboards`.
  /// - Throws: ``QuireError`` `.permissionDenied` when a folder is not private to this user.
  public static func general(rootFolder: URL? = nil) throws -> Pasteboard {
    try Pasteboard(name: generalName, rootFolder: rootFolder)
  }

  /// A named pasteboard, made when it does not exist.
  ///
  /// - Parameters:
  ///   - name: Letters, digits, `.`, `_` and `-`, not starting with a dot, at most 64 bytes.
  ///   - rootFolder: The folder holding the pasteboards; by default
  ///     `$XDG_RUNTIME_DIR/quire/pasteboards` (`/tmp/quire-runtime-<uid>` when unset).
  /// - Throws: ``QuireError`` `.invalidArgument` for a bad name; `.permissionDenied` when
  ///   the root or the pasteboard folder is a symbolic link, belongs to another user or lets
  ///   other users in.
  public convenience init(name: String, rootFolder: URL? = nil) throws {
    try self.init(name: name, rootFolder: rootFolder, usesLocalItems: true)
  }

  /// Makes a pasteboard that, with `usesLocalItems` false, reads what another process
  /// would see even for items this process set (for tests of the cross-process paths).
  @_spi(Testing)
  public init(name: String, rootFolder: URL?, usesLocalItems: Bool) throws {
    guard Self.isValidName(name) else {
      throw QuireError(
        .invalidArgument,
        "'\(name)' is not a pasteboard name: use letters, digits, '.', '_' and '-' (at most 64, not starting with a dot).")
    }
    let root = try rootFolder ?? Self.defaultRootFolder()
    self.name = name
    folder = PasteboardFolder(root: root, name: name)
    self.usesLocalItems = usesLocalItems
    try folder.prepare()
  }

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
        folder: folder, generation: generation, providers: providers, expirationDate: expirationDate, server: server)
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
  public var changeCount: Int {
    get throws { try folder.withLock(exclusive: false) { try folder.readState()?.changeCount ?? 0 } }
  }

  /// The items, as providers to load from. Items this process set come back as they were
  /// given (every representation); others come from the folder or from the live process
  /// that promised them. Expired items are left out.
  public var itemProviders: [ItemProvider] {
    get throws {
      let state = try folder.withLock(exclusive: false) { try folder.readState() }
      guard let state else { return [] }
      let now = Date()
      if usesLocalItems, let local = Self.localItems.withLock({ $0[folder.url.path] }), local.generation == state.generation {
        return local.expirationDate.map { $0 <= now } == true ? [] : local.providers
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
              switch Syscalls.lstat(file.path) {
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
              guard link(file.path, linked.path) == 0 else {
                throw TransferErrors.opening(file, SystemCallError(call: "link", code: errno))
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
          // A thread of its own: the fetch waits on the other process, which would starve
          // Dispatch's few global threads.
          Thread {
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
          }.start()
          return progress
        }
      }
    }
    return provider.representations.isEmpty ? nil : provider
  }

  // MARK: Leaving

  /// Writes this process's promised representations into the pasteboard folder and stops
  /// serving them, so they outlive the process. Call it before a clean exit (`quire` does).
  ///
  /// Representations whose handler fails are dropped from the pasteboard; the rest are kept.
  /// - Throws: the first failure, after trying every representation.
  public func materializePromises() async throws {
    guard let local = Self.localItems.withLock({ $0[folder.url.path] }) else { return }
    try await Self.materialize(local)
  }

  /// Materialises the promises of every pasteboard this process set (see
  /// ``materializePromises()``).
  public static func materializePromises() async throws {
    let all = localItems.withLock { Array($0.values) }
    var firstError: (any Error)?
    for local in all {
      do { try await materialize(local) } catch { firstError = firstError ?? error }
    }
    if let firstError { throw firstError }
  }

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
    let now = Date()
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
            rename(staging.appendingPathComponent(fileName).path, dataFolder.appendingPathComponent(fileName).path) == 0
          else { return nil }
          return PasteboardState.StoredRepresentation(typeIdentifier: representation.typeIdentifier, fileName: fileName)
        }
        kept.append(item)
      }
      state.items = kept
      state.ownerProcess = nil
      if let socket = state.socketName { _ = unlink(folder.file(socket).path) }
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
              defer { Syscalls.close(fd) }
              if case .failure(let error) = Syscalls.writeAll(fd, data) { throw TransferErrors.writing(target, error) }
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

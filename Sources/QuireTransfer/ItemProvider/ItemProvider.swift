public import Foundation
public import QuireCoordination
import QuireSystem
public import QuireTypes
import Synchronization
    // The task's fault plan (tests) goes with the load to the pool's thread.
    Self.loads.submit(
      FaultPlan.carry {
        if gate.isFinished { return }
        let child: Progress?
        switch representation.kind {
        case .data(let handler):
          child = handler { data, error in
            if let data {
              // Bytes outlive the call, so the receiver's work (writing a temporary file, its
              // own handler) moves off the provider's thread, which may be the cooperative pool.
              Self.deliveries.submit(FaultPlan.carry { gate.finish(.success(.data(data))) })
            } else {
              gate.finish(.failure(error ?? Self.noResult(identifier, name)))
            }
          }
        case .file(let handler, _):
          child = handler { url, error in
            if let url {
              gate.finish(.success(.file(url)))
            } else {
              gate.finish(.failure(error ?? Self.noResult(identifier, name)))
            }
          }
        }
        if let child { gate.onStop { child.cancel() } }
      })
  }

  private func loadData(
    _ representation: Representation, deliver: @escaping @Sendable (Swift.Result<Data, any Error>) -> Void
  ) -> Progress {
    let progress = Progress(totalUnitCount: 1)
    start(representation, progress: progress) { result in
      switch result {
      case .success(.data(let data)): deliver(.success(data))
      case .success(.file(let url)): deliver(Swift.Result { try self.readData(url, typeIdentifier: representation.typeIdentifier) })
      case .failure(let error): deliver(.failure(error))
      }
    }
    return progress
  }

  func loadFile(
    _ representation: Representation, inPlace: Bool,
    completionHandler: @escaping @Sendable (URL?, Bool, (any Error)?) -> Void
  ) -> Progress {
    let progress = Progress(totalUnitCount: 1)
    let name = ScratchFolder.fileName(suggestedName: suggestedName, type: representation.contentType)
    start(representation, progress: progress) { result in
      let scratch: ScratchFolder
      do {
        switch result {
        case .failure(let error): return completionHandler(nil, false, error)
        case .success(.file(let url)):
          if inPlace, case .file(_, openInPlace: true) = representation.kind {
            return completionHandler(url, true, nil)
          }
          scratch = try ScratchFolder()
          do {
            let copy = try self.fileReadCoordinator.coordinateReading(itemAt: url, timeout: self.loadTimeout) {
              try scratch.copy($0, named: name) { progress.isCancelled }
            }
            defer { scratch.remove() }
            completionHandler(copy, false, nil)
          } catch {
            scratch.remove()
            throw error
          }
        case .success(.data(let data)):
          scratch = try ScratchFolder()
          defer { scratch.remove() }
          let file = try scratch.write(data, named: name)
          completionHandler(file, false, nil)
        }
      } catch {
        completionHandler(nil, false, error)
      }
    }
    return progress
  }

  /// Reads a file representation into memory, refusing files over ``maximumDataSize``.
  func readData(_ url: URL, typeIdentifier: String) throws -> Data {
    let limit = maximumDataSize
    return try fileReadCoordinator.coordinateReading(itemAt: url, timeout: loadTimeout) { url in
      let fd: Int32
      switch SystemCalls.open(FilePath(url.path), O_RDONLY, mode: 0).map(\.rawValue) {
      case .success(let opened): fd = opened
      case .failure(let error): throw TransferErrors.opening(url, error)
      }
      defer { SystemCalls.release(FileDescriptor(rawValue: fd)) }
      let tooLarge = QuireError(
        .limitExceeded,
        "The \(typeIdentifier) representation of \(itemName) is larger than \(limit >> 20) MiB, too large to load into memory. Load it as a file instead.",
        url: url)
      // Refuse by size before reading anything; the loop below still stops a growing file.
      if case .success(let info) = SystemCalls.fstat(FileDescriptor(rawValue: fd)), Int64(info.st_size) > Int64(limit) { throw tooLarge }
      var data = Data()
      let chunk = 1 << 20
      var buffer = [UInt8](repeating: 0, count: chunk)
      while true {
        let count = try buffer.withUnsafeMutableBytes { raw -> Int in
          switch SystemCalls.read(FileDescriptor(rawValue: fd), into: raw) {
          case .success(let count): return count
          case .failure(let error): throw QuireError(.systemCallFailed, "Cannot read \(QuireError.name(url)).", url: url, cause: error)
          }
        }
        if count == 0 { break }
        if data.count + count > limit { throw tooLarge }
        data.append(contentsOf: buffer[0..<count])
      }
      return data
    }
  }

  private func failedLoad(_ error: any Error, _ deliver: @escaping @Sendable (any Error) -> Void) -> Progress {
    let progress = Progress(totalUnitCount: 1)
    Self.deliveries.submit { deliver(error) }
    return progress
  }

  private static let timeoutQueue = DispatchQueue(label: "quire.transfer.timeouts")
  /// The threads that run representation handlers: at most 32 loads run at once, the rest wait.
  static let loads = ThreadPool(name: "quire.transfer.load", limit: 32)
  /// The threads that hand results, failures and timeouts to the receivers.
  static let deliveries = ThreadPool(name: "quire.transfer.deliver", limit: 8)

  // MARK: Describing

  var itemName: String { suggestedName.map { "the item '\($0)'" } ?? "the item" }

  var offered: String {
    let identifiers = registeredTypeIdentifiers
    return identifiers.isEmpty ? "nothing" : identifiers.joined(separator: ", ")
  }

  private func missing(_ typeIdentifier: String) -> QuireError {
    QuireError(
      .unsupportedType,
      "\(itemName.capitalizedFirst) has no \(typeIdentifier) representation; it offers \(offered).")
  }

  func noResult(_ typeIdentifier: String) -> QuireError { Self.noResult(typeIdentifier, itemName) }

  private static func noResult(_ typeIdentifier: String, _ name: String) -> QuireError {
    QuireError(.invalidContent, "The \(typeIdentifier) representation of \(name) delivered neither data nor an error.")
  }

  private static func result<Value>(_ value: Value?, _ error: (any Error)?) -> Swift.Result<Value, any Error> {
    if let value { return .success(value) }
    return .failure(error ?? QuireError(.invalidContent, "The load delivered neither a value nor an error."))
  }

  /// The representations as a small tree, e.g. for `status` output and tests.
  public var debugDescription: String {
    var lines = ["ItemProvider\(suggestedName.map { " '\($0)'" } ?? "")"]
    let all = representations
    for (index, representation) in all.enumerated() {
      let branch = index == all.count - 1 ? "└─" : "├─"
      var form: String
      switch representation.kind {
      case .data: form = "data"
      case .file(_, let openInPlace): form = openInPlace ? "file, open in place" : "file"
      }
      if representation.visibility == .ownProcess { form += ", own process" }
      lines.append("\(branch) \(representation.typeIdentifier) (\(form))")
    }
    return lines.joined(separator: "\n")
  }
}

extension String {
  var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}

extension ItemProvider {
  /// Writes the representation of exactly `type` (else the first conforming to it) to
  /// `requested`, replacing a regular file atomically (a device or FIFO is written through): a file representation is copied keeping holes
  /// (streamed, never held in memory), a data representation is written.
  ///
  /// - Returns: The identifier of the representation written.
  /// - Throws: ``QuireError`` for a missing type, a failed load, or a destination that
  ///   cannot be written (the old file is then untouched).
  @discardableResult
  public func writeRepresentation(for type: UTType, to requested: URL) async throws -> String {
    guard let representation = representation(accepting: [type.identifier]) else {
      throw QuireError(.unsupportedType, "\(itemName.capitalizedFirst) has no \(type.identifier) representation; it offers \(offered).")
    }
    let identifier = representation.typeIdentifier
    // What is at the destination decides how it is written (OutputPath): a device or FIFO is
    // written through, a regular file (or nothing) replaced atomically at its link's target.
    let destination: URL
    let special: String?
    switch try OutputPath.kind(of: requested) {
    case .regularFile(let target): (destination, special) = (target, nil)
    case .special(let description): (destination, special) = (requested, description)
    }
    let _: Bool = try await awaitLoad { resume in
      let progress = Progress(totalUnitCount: 1)
      start(representation, progress: progress) { result in
        resume(
          Swift.Result {
            if let special {
              let data: Data
              switch try result.get() {
              case .data(let loaded): data = loaded
              case .file(let url):
                data = try self.fileReadCoordinator.coordinateReading(itemAt: url, timeout: self.loadTimeout) { try Data(contentsOf: $0) }
              }
              try OutputPath.writeThrough(data, to: destination, description: special)
              return true
            }
            // Write beside the destination (0666 less the umask, as a new file would be),
            // then rename over it, so a failure leaves the old file whole.
            let temporary = destination.deletingLastPathComponent()
              .appendingPathComponent(".\(destination.lastPathComponent).quire-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
            switch try result.get() {
            case .data(let data):
              let fd = try ScratchFolder.create(temporary, mode: 0o666)
              let written = SystemCalls.writeAll(FileDescriptor(rawValue: fd), data)
              SystemCalls.release(FileDescriptor(rawValue: fd))
              if case .failure(let error) = written {
                _ = SystemCalls.remove(temporary.path)
                throw TransferErrors.writing(destination, error)
              }
            case .file(let url):
              try self.fileReadCoordinator.coordinateReading(itemAt: url, timeout: self.loadTimeout) {
                try ScratchFolder.copyFile($0, to: temporary, mode: 0o666) { progress.isCancelled }
              }
            }
            if case .failure(let error) = SystemCalls.rename(temporary.path, to: destination.path) {
              _ = SystemCalls.remove(temporary.path)
              throw TransferErrors.writing(destination, error)
            }
            return true
          })
      }
      return progress
    }
    return identifier
  }
}

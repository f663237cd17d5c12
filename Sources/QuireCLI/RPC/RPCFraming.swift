import Foundation
import QuireSystem
import SystemPackage

/// What the frame reader found on standard input (LSP's base protocol: `Content-Length: N`,
/// other headers, a blank line, then N bytes of UTF-8 JSON).
enum RPCInput: Sendable {
  /// A frame's body.
  case message(Data)
  /// A frame whose body was longer than the limit: its bytes were read past, never kept.
  case oversized(Int)
  /// Headers that do not make a frame (no or a bad `Content-Length`, too long); the reader
  /// skipped past them.
  case badHeader(String)
  /// The input ended (or failed).
  case end
}

/// Reads frames from a descriptor on a thread of its own (blocking reads), so the main actor
/// stays free to answer and to send notifications.
enum RPCFrameReader {
  /// The largest body read into memory: 64 MiB.
  static let maximumBodySize = 64 << 20
  /// The largest header block.
  static let maximumHeaderSize = 8 << 10

  /// The frames on `fd`, in order, ending with ``RPCInput/end``.
  static func frames(from fd: FileDescriptor) -> AsyncStream<RPCInput> {
    let (stream, continuation) = AsyncStream<RPCInput>.makeStream(bufferingPolicy: .unbounded)
    DedicatedThread.start(named: "quire-rpc-input") {
      var reader = Reader(fd: fd)
      while true {
        let input = reader.next()
        continuation.yield(input)
        if case .end = input { break }
      }
      continuation.finish()
    }
    return stream
  }

  /// The parser: a buffer over blocking reads.
  struct Reader {
    let fd: FileDescriptor
    var buffer: [UInt8] = []
    var ended = false

    init(fd: FileDescriptor) { self.fd = fd }

    /// Reads more into the buffer; false at the end of input.
    mutating func fill() -> Bool {
      guard !ended else { return false }
      var chunk = [UInt8](repeating: 0, count: 1 << 16)
      let count = chunk.withUnsafeMutableBytes { SystemCalls.read(fd, into: $0) }
      guard case .success(let read) = count, read > 0 else {
        ended = true
        return false
      }
      buffer.append(contentsOf: chunk[0..<read])
      return true
    }

    mutating func next() -> RPCInput {
      // The header block, up to the blank line.
      var headerEnd: Int?
      var searched = 0
      while true {
        if let end = Self.blankLine(in: buffer, from: max(0, searched - 3)) {
          headerEnd = end
          break
        }
        searched = buffer.count
        if buffer.count > RPCFrameReader.maximumHeaderSize {
          buffer.removeAll()
          // Skip to the next blank line: what follows may be a good frame.
          while fill() {
            if let end = Self.blankLine(in: buffer, from: 0) {
              buffer.removeFirst(end)
              break
            }
            if buffer.count > 3 { buffer.removeFirst(buffer.count - 3) }
          }
          return ended && buffer.isEmpty ? .end : .badHeader("a header block longer than \(RPCFrameReader.maximumHeaderSize) bytes")
        }
        if !fill() {
          // Blank lines or nothing left at the end are not a frame.
          let rest = String(decoding: buffer, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
          buffer.removeAll()
          return rest.isEmpty ? .end : .badHeader("the input ended inside a header")
        }
      }
      guard let end = headerEnd else { return .end }
      let header = String(decoding: buffer[0..<(end - 4)], as: UTF8.self)
      buffer.removeFirst(end)
      var length: Int?
      for line in header.split(whereSeparator: { $0 == "\r\n" || $0 == "\n" || $0 == "\r" }) {
        let parts = line.split(separator: ":", maxSplits: 1)
        guard parts.count == 2 else { continue }
        if parts[0].trimmingCharacters(in: .whitespaces).lowercased() == "content-length" {
          length = Int(parts[1].trimmingCharacters(in: .whitespaces))
        }
      }
      guard let length, length >= 0 else {
        return .badHeader("no valid Content-Length header")
      }
      if length > RPCFrameReader.maximumBodySize {
        // Read past the body without keeping it.
        var left = length
        while left > 0 {
          if buffer.isEmpty && !fill() { return .oversized(length) }
          let taken = min(left, buffer.count)
          buffer.removeFirst(taken)
          left -= taken
        }
        return .oversized(length)
      }
      while buffer.count < length {
        if !fill() {
          buffer.removeAll()
          return .badHeader("the input ended inside a frame's body")
        }
      }
      let body = Data(buffer[0..<length])
      buffer.removeFirst(length)
      return .message(body)
    }

    /// The offset just after the first `\r\n\r\n` at or after `start`.
    static func blankLine(in bytes: [UInt8], from start: Int) -> Int? {
      guard bytes.count >= 4 else { return nil }
      var index = start
      while index + 3 < bytes.count {
        if bytes[index] == 13, bytes[index + 1] == 10, bytes[index + 2] == 13, bytes[index + 3] == 10 { return index + 4 }
        index += 1
      }
      return nil
    }
  }
}

/// Writes frames to standard output, one whole frame per write.
enum RPCFrameWriter {
  static func write(_ body: Data, to fd: FileDescriptor = .standardOutput) {
    var frame = Data("Content-Length: \(body.count)\r\n\r\n".utf8)
    frame.append(body)
    _ = SystemCalls.writeAll(fd, frame)
  }
}

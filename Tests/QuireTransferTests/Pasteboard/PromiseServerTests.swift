import Foundation
import QuireSystem
import QuireTestSupport
@_spi(Testing) import QuireTransfer
import QuireTypes
import Testing

/// The promise socket is an input path: whatever arrives on it gets an answer or a closed
/// connection, never a crash, and never a representation that is not for other processes.
@Suite("Promise server: hostile requests")
final class PromiseServerTests: FolderSuite {
  let socket: String
  let generation: String
  var root: URL { folder.file("pasteboards") }

  init() async throws {
    let folder = try TemporaryFolder()
    let root = folder.file("pasteboards")
    let provider = ItemProvider()
    provider.registerDataRepresentation(forTypeIdentifier: "com.example.private", visibility: .ownProcess) { Data("secret".utf8) }
    provider.registerDataRepresentation(for: .plainText) { Data("public".utf8) }
    let board = try Pasteboard(name: "general", rootFolder: root)
    try board.setItemProviders([provider])
    let names = try FileManager.default.contentsOfDirectory(atPath: board.folderURL.path)
    let socketName = try #require(names.first { $0.hasSuffix(".sock") })
    socket = board.folderURL.appendingPathComponent(socketName).path
    let state = try JSONSerialization.jsonObject(with: Data(contentsOf: board.folderURL.appendingPathComponent("state.json")))
    generation = try #require((state as? [String: Any])?["generation"] as? String)
    super.init(folder: folder)
  }

  /// Asks on a thread of its own: the server's handlers need the cooperative pool, which a
  /// blocking wait inside the test would take from them.
  func ask(_ request: String) async throws -> String {
    let socket = socket
    let answer = await withCheckedContinuation { (continuation: CheckedContinuation<Data?, Never>) in
      Thread { continuation.resume(returning: TransferTesting.exchange(Data(request.utf8), withSocketAt: socket)) }.start()
    }
    return String(decoding: try #require(answer), as: UTF8.self)
  }

  @Test func aWellFormedRequestIsServed() async throws {
    let answer = try await ask(#"{"generation":"\#(generation)","item":0,"typeIdentifier":"public.plain-text"}"# + "\n")
    #expect(answer == "{\"length\":6}\npublic")
  }

  @Test func ownProcessRepresentationsAreRefused() async throws {
    let answer = try await ask(#"{"generation":"\#(generation)","item":0,"typeIdentifier":"com.example.private"}"# + "\n")
    #expect(!answer.contains("secret"))
    #expect(answer.contains("no com.example.private representation for other processes"))
  }

  @Test(arguments: [
    "garbage\n",
    "\n",
    "{}\n",
    #"{"generation":"other","item":0,"typeIdentifier":"public.plain-text"}"# + "\n",
    #"{"generation":"GEN","item":-1,"typeIdentifier":"public.plain-text"}"# + "\n",
    #"{"generation":"GEN","item":99999999999,"typeIdentifier":"public.plain-text"}"# + "\n",
    #"{"generation":"GEN","item":0,"typeIdentifier":"public.png"}"# + "\n",
  ])
  func badRequestsGetAnAnswerWithoutData(_ request: String) async throws {
    let answer = try await ask(request.replacingOccurrences(of: "GEN", with: generation))
    #expect(answer.hasPrefix("{\"message\":"))
    #expect(!answer.contains("public\n") && !answer.contains("secret"))
  }

  @Test func anOverlongRequestIsCutOff() async throws {
    let answer = try await ask(String(repeating: "x", count: 200_000))
    #expect(answer.contains("not understood"))
    // The server still serves afterwards.
    let again = try await ask(#"{"generation":"\#(generation)","item":0,"typeIdentifier":"public.plain-text"}"# + "\n")
    #expect(again.hasSuffix("public"))
  }
}

@Suite("Transfer: failures driven through the system-call hook")
final class SystemCallFailureTests: FolderSuite {
  init() throws { try super.init() }

  @Test func anUnreadableFileRepresentationIsPermissionDenied() async throws {
    let file = try folder.write("private", to: "locked.txt")
    let provider = ItemProvider(contentsOf: file)
    await expectQuireError(.permissionDenied, reasonContains: "'locked.txt'") {
      try await FaultPlan(failing: .open, with: .permissionDenied, under: file.path).run {
        try await provider.loadDataRepresentation(for: .plainText)
      }
    }
  }

  @Test func aFullDiskWhileMaterializingIsReportedAndNothingHalfWrittenIsListed() async throws {
    let root = folder.file("pasteboards")
    let board = try Pasteboard(name: "general", rootFolder: root)
    try board.setString("will not fit")
    await expectQuireError(.diskFull, reasonContains: "disk is full") {
      try await FaultPlan(failing: .create, with: .noSpace, under: board.folderURL.appendingPathComponent("staging-").path).run {
        try await board.materializePromises()
      }
    }
    let other = try Pasteboard(name: "general", rootFolder: root, usesLocalItems: false)
    #expect(try other.types.isEmpty)
  }

  @Test func emptyRepresentationsTravel() async throws {
    let root = folder.file("pasteboards")
    try Pasteboard(name: "general", rootFolder: root).setString("")
    let other = try Pasteboard(name: "general", rootFolder: root, usesLocalItems: false)
    #expect(try await other.string() == "")
    try await Pasteboard(name: "general", rootFolder: root).materializePromises()
    #expect(try await other.string() == "")
  }

  @Test func anOversizedStateFileIsRefused() throws {
    let root = folder.file("pasteboards")
    let board = try Pasteboard(name: "general", rootFolder: root)
    let state = board.folderURL.appendingPathComponent("state.json")
    _ = FileManager.default.createFile(atPath: state.path, contents: nil, attributes: [.posixPermissions: 0o600])
    let handle = try FileHandle(forWritingTo: state)
    try handle.truncate(atOffset: 17 << 20)
    try handle.close()
    expectQuireError(.limitExceeded) { try board.changeCount }
  }
}

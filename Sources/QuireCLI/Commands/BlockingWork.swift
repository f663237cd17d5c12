import Foundation

/// Runs blocking work (a REPL session waiting in `readLine`, a thumbnail batch waiting on its
/// worker processes) on a thread of its own and awaits its result, so that it never holds a
/// thread of Swift's cooperative pool: the pool is as wide as the machine has cores, and work
/// the blocked code waits for (item loads, other tasks) needs those threads.
///
/// - Parameters:
///   - name: The thread's name, as `ps -L` and debuggers show it.
///   - body: The work; what it returns or throws is this function's result.
func runOnOwnThread<T: Sendable>(named name: String, _ body: @escaping @Sendable () throws -> T) async throws -> T {
  try await withCheckedThrowingContinuation { continuation in
    let thread = Thread { continuation.resume(with: Result { try body() }) }
    thread.name = name
    thread.stackSize = 8 << 20
    thread.start()
  }
}

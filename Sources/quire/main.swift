import Foundation
import Quire
import QuireCLI
import QuireTransfer

// `quire --version` answers before the argument parser: building the command tree reflects
// over every subcommand's options (Mirror and dynamic casts that scan all of the program's
// protocol conformances), which costs more than the rest of start-up. Same output.
if CommandLine.argc == 2, let argument = CommandLine.unsafeArgv[1], strcmp(argument, "--version") == 0 {
  print(quireVersion)
  exit(ExitStatus.success)
}
let status = await QuireCommand.runAsMainProgram(arguments: QuireCommand.processArguments)
// Items this process put on a pasteboard outlive it: write their promised representations
// into the pasteboard folder (quire copy does so itself and reports failures).
try? await Pasteboard.materializePromises()
exit(status)

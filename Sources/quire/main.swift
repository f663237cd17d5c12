import Foundation
import QuireCLI
import QuireTransfer

let status = await QuireCommand.runAsMainProgram(arguments: QuireCommand.processArguments)
// Items this process put on a pasteboard outlive it: write their promised representations
// into the pasteboard folder (quire copy does so itself and reports failures).
try? await Pasteboard.materializePromises()
exit(status)

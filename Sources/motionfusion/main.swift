import Glibc
import MotionFusion
import MotionFusionCommandLine

PendingOutputs.installSignalHandlers()
exit(CommandLine.run(Array(CommandLine.arguments.dropFirst())))

import Glibc
import MotionFusion
import MotionFusionCommandLine

LinearAlgebra.configure()
PendingOutputs.installSignalHandlers()
exit(CommandLine.run(Array(CommandLine.arguments.dropFirst())))

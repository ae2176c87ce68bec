import Glibc
import MotionFusion
import MotionFusionCommandLine

SignalHandlers.install()
exit(CommandLine.run(Array(CommandLine.arguments.dropFirst())))

import Glibc
import MotionFusion
import MotionFusionCommandLine

LinearAlgebra.configure()
exit(CommandLine.run(Array(CommandLine.arguments.dropFirst())))

import MotionFusionCommandLine
import Glibc

exit(CommandLine.run(Array(CommandLine.arguments.dropFirst())))

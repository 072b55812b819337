// SPDX-License-Identifier: BSD-2-Clause
// tests/integration/test_collector_profile_java.sh's app: the static
// initializer of JvmBurn.Slow burns burn.ms (default 300) ms of its
// thread's CPU time in JvmBurn.burn, Java code whose hot loop calls step(),
// small and hot: C2 inlines it into burn; step calls leaf(), which the
// test may keep from being inlined (-XX:CompileCommand=dontinline): then a
// call from burn's compiled code is made at a pc of step's inlined scope.
// Then main returns (with -Dburn.report=true after printing the burn's
// rounds: bench/jvm.sh), and the JVM exits right after its boot. CPU time, not
// wall time: on a loaded machine a wall-time burn gets what the scheduler
// gives it.
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

public class JvmBurn {
	static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();
	static long sink, rounds;

	static class Slow {
		static {
			burn(Long.getLong("burn.ms", 300));
		}

		static void touch() {
		}
	}

	static long leaf(long x) {
		return x * 6364136223846793005L + 1442695040888963407L;
	}

	static long step(long x) {
		return leaf(x) ^ (x >>> 7);
	}

	static void burn(long ms) {
		long end = CPU.getCurrentThreadCpuTime() + ms * 1000000L, x = 1;

		while (CPU.getCurrentThreadCpuTime() < end) {
			for (int i = 0; i < 200000; i++)
				x = step(x);
			rounds++;
		}
		sink = x;
	}

	public static void main(String[] args) {
		CPU.getCurrentThreadCpuTime();	// the clock's classes loaded before the window
		Slow.touch();
		if (Boolean.getBoolean("burn.report"))	// bench/jvm.sh: the work done in the CPU time
			System.out.println("rounds=" + rounds);
	}
}

/** Process accounting from {@code /proc} and the JVM's hsperfdata file: CPU, RSS, heap, fds. */
@NullMarked
package narwhal.bench.proc;

import org.jspecify.annotations.NullMarked;

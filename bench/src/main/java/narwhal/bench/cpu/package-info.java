/**
 * CPU placement and CPU time outside the processes the harness started: which CPUs the proxy
 * under test and everything else run on ({@code taskset}), and what the rest of the machine
 * (other tenants) used during a measurement window ({@code /proc/stat}).
 */
@NullMarked
package narwhal.bench.cpu;

import org.jspecify.annotations.NullMarked;

/** Results: per arm and level figures, the Markdown table, the chart and the machine description. */
@NullMarked
package narwhal.bench.report;

import org.jspecify.annotations.NullMarked;

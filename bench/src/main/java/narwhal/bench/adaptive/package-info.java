/**
 * {@code narwhal bench adaptive}: replays request traces against four simulated GPU-like engines
 * under every static prefill/decode split, the best static split with predictive admission, and
 * the adaptive role controller, and reports SLO attainment against offered rate and goodput (the
 * highest rate at 90 % attainment), with the engines' roles over time.
 */
@NullMarked
package narwhal.bench.adaptive;

import org.jspecify.annotations.NullMarked;

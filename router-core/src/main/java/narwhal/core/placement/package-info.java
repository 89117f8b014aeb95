/**
 * Cost-based placement (Arrow's Alg. 1): what each engine would cost a request, projected from its
 * profile and the work resident on it, and the rankings placement applies on top of the fleet's
 * filters and preferences. The projections are public so admission and the role controller price
 * with the same numbers.
 */
@NullMarked
package narwhal.core.placement;

import org.jspecify.annotations.NullMarked;

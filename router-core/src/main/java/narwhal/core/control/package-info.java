/**
 * The role controller: it moves engines between the prefill and decode roles as load shifts
 * (Arrow's Alg. 2 and 3 with the reference's reactive scoring and guards), repairs pools that
 * fall below their floors, and records every decision as a journal event row, in {@code
 * /narwhal/state} and in metrics. {@link narwhal.core.control.RoleController} is the entry point;
 * docs/profiles-and-controller.md "Reading the controller" explains its decisions to an operator.
 */
@NullMarked
package narwhal.core.control;

import org.jspecify.annotations.NullMarked;

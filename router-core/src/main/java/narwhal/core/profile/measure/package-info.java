/**
 * Measuring an engine for its profile ({@code narwhal profile}): prefill legs of growing prompts
 * timed one at a time, then batches of concurrent streams whose steady inter-token interval is
 * read against the tokens they hold; then the fits of {@link narwhal.core.profile.ProfileFits}.
 * Everything runs on one {@link narwhal.time.Scheduler} without blocking it.
 */
@NullMarked
package narwhal.core.profile.measure;

import org.jspecify.annotations.NullMarked;

/**
 * Engine latency profiles: the prefill and decode models admission, placement and the role
 * controller price work with, the prompt-size estimate they are applied to, and the profiles file.
 */
@NullMarked
package narwhal.core.profile;

import org.jspecify.annotations.NullMarked;

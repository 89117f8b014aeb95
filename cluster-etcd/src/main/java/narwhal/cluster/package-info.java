/** Active-active replicas over etcd. */
@NullMarked
package narwhal.cluster;

import org.jspecify.annotations.NullMarked;

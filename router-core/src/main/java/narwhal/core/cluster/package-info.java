/**
 * The router's view of the replicas it runs with: the one hook readiness and {@code
 * /narwhal/state} read. The other cluster hooks live beside what they extend (the breaker's
 * {@code VerdictBus}, the controller's {@code RoleAuthority}, admission's {@code ShareDemand},
 * {@code EngineState.peerWork}); the {@code cluster-etcd} module implements them all, and nothing
 * in the core knows etcd.
 */
@NullMarked
package narwhal.core.cluster;

import org.jspecify.annotations.NullMarked;

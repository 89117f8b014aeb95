/**
 * The router's index of which engine holds which prompt prefix in its prefix cache, behind {@link
 * narwhal.prefix.PrefixCacheView}: fed by each vLLM engine's KV events (ZeroMQ PUB/SUB with a
 * ROUTER replay socket, MessagePack payloads in either of vLLM's encodings) on one thread of its
 * own, or learned from the router's own placements for engines that publish none; checked against
 * what the engines report (the self-check). Placement reads it on the event loops without locks.
 */
@NullMarked
package narwhal.kvindex;

import org.jspecify.annotations.NullMarked;

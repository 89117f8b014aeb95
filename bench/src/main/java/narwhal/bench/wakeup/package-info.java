/**
 * {@code narwhal bench wakeup}: what one loopback round trip costs when the answering process has
 * been idle for a while, on this machine. An echo server pinned to the proxy's CPU (as the router
 * is in a sweep) answers a prober pinned to another CPU, after idle gaps of increasing length; the
 * growth of the round trip with the gap is the price of waking an idle (on a haltpoll guest:
 * halted) vCPU. {@code --echo-spin} keeps the echo's CPU busy instead, which should flatten it.
 */
@NullMarked
package narwhal.bench.wakeup;

import org.jspecify.annotations.NullMarked;

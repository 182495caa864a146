package io.flashstock.order.ratelimit;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;

/**
 * The client a rate limit counts: the remote address as the servlet container reports it; an IPv6 address by its
 * /64, the block one subscriber gets, or a single client could count as 2^64 of them.
 */
final class ClientAddress {

    private static final int IPV6_PREFIX_BYTES = 8;

    private ClientAddress() {
    }

    static String of(String remoteAddress) {
        // only an IPv6 literal has a colon; parsing one never asks DNS (a host name would, so none is parsed)
        if (remoteAddress == null || remoteAddress.indexOf(':') < 0) {
            return remoteAddress;
        }
        try {
            InetAddress address = InetAddress.getByName(remoteAddress);
            if (!(address instanceof Inet6Address)) {
                // an IPv4-mapped IPv6 address is its IPv4 client
                return address.getHostAddress();
            }
            byte[] bytes = address.getAddress();
            Arrays.fill(bytes, IPV6_PREFIX_BYTES, bytes.length, (byte) 0);
            return InetAddress.getByAddress(bytes).getHostAddress() + "/64";
        } catch (UnknownHostException e) {
            return remoteAddress;
        }
    }
}

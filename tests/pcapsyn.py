# SPDX-License-Identifier: BSD-3-Clause
"""pcapsyn.py: build small synthetic captures for the hostile-input tests.

Ethernet / IPv4 (checksummed, fragments) / UDP / TCP frames, ONC RPC calls
and replies (RFC 5531) with AUTH_SYS or RPCSEC_GSS credentials (RFC 2203),
the RPC-over-TLS probe and TLS records (RFC 9289), NFSv3 and MOUNT v3 bodies,
TCP record marking, and a classic pcap writer that lets every header field
lie (snaplen, caplen, wire length, timestamps). Standard library only; used by
tests/e2e_badinput.py and tests/e2e_termsafe.py. Big floods are written by
tests/flood/floodgen.c instead (speed).
"""
import struct

DLT_EN10MB = 1
NFS_PROG, MOUNT_PROG = 100003, 100005
AUTH_NONE, AUTH_SYS = 0, 1
RPCSEC_GSS, AUTH_TLS = 6, 7
GSS_DATA, GSS_INIT, GSS_CONTINUE_INIT, GSS_DESTROY = 0, 1, 2, 3
SVC_NONE, SVC_INTEGRITY, SVC_PRIVACY = 1, 2, 3


# ---- XDR (RFC 4506) -------------------------------------------------------
def u32(v):
    return struct.pack(">I", v & 0xFFFFFFFF)


def opaque(b, declared=None):
    """Variable-length opaque/string: length, bytes, pad to 4. `declared`
    overrides the length word (to lie about it)."""
    n = len(b) if declared is None else declared
    return u32(n) + b + b"\0" * (-len(b) % 4)


# ---- RPC -----------------------------------------------------------------
def auth_sys(machine=b"client", uid=0, gid=0, gids=(), stamp=1):
    return (u32(stamp) + opaque(machine) + u32(uid) + u32(gid) + u32(len(gids)) +
            b"".join(u32(g) for g in gids))


def rpc_call(xid, prog, vers, proc, args=b"", cred=None, cred_flavor=AUTH_SYS, verf=b"",
             verf_flavor=AUTH_NONE):
    if cred is None:
        cred = auth_sys()
    return (u32(xid) + u32(0) + u32(2) + u32(prog) + u32(vers) + u32(proc) +
            u32(cred_flavor) + opaque(cred) + u32(verf_flavor) + opaque(verf) + args)


def rpc_reply(xid, results=b"", accept_stat=0, verf=b"", verf_flavor=AUTH_NONE):
    """MSG_ACCEPTED, by default with an empty AUTH_NONE verifier."""
    return (u32(xid) + u32(1) + u32(0) + u32(verf_flavor) + opaque(verf) + u32(accept_stat) +
            results)


# ---- RPCSEC_GSS (RFC 2203 §5) ---------------------------------------------
def gss_cred(gss_proc=GSS_DATA, seq=0, service=SVC_NONE, handle=b"ctx1", version=1):
    """rpc_gss_cred_vers_1_t: version, gss_proc, seq_num, service, handle<>."""
    return u32(version) + u32(gss_proc) + u32(seq) + u32(service) + opaque(handle)


def gss_call(xid, prog, vers, proc, args=b"", gss_proc=GSS_DATA, seq=0, service=SVC_NONE,
             handle=b"ctx1", checksum=b"\x5a" * 28):
    """A call with an RPCSEC_GSS credential. DATA calls carry a checksum
    verifier (§5.3.1); INIT and CONTINUE_INIT an AUTH_NONE one (§5.2.2).
    `args` is the body as sent: wrap it with integ_data or priv_data."""
    ctl = gss_proc in (GSS_INIT, GSS_CONTINUE_INIT)
    return rpc_call(xid, prog, vers, proc, args,
                    cred=gss_cred(gss_proc, seq, service, b"" if gss_proc == GSS_INIT else handle),
                    cred_flavor=RPCSEC_GSS, verf=b"" if ctl else checksum,
                    verf_flavor=AUTH_NONE if ctl else RPCSEC_GSS)


def gss_reply(xid, results=b"", checksum=b"\xa5" * 28, accept_stat=0):
    """A reply to a DATA call: its verifier is the checksum of seq_num (§5.3.3.2)."""
    return rpc_reply(xid, results, accept_stat, verf=checksum, verf_flavor=RPCSEC_GSS)


def integ_data(seq, body, checksum=b"\xc3" * 28):
    """rpc_gss_integ_data (§5.3.2.2): databody_integ<> = seq_num + body, checksum<>."""
    return opaque(u32(seq) + body) + opaque(checksum)


def priv_data(blob):
    """rpc_gss_priv_data (§5.3.2.3): databody_priv<>, the wrap token."""
    return opaque(blob)


def gss_init_arg(token):
    return opaque(token)


def gss_init_res(handle, major=0, minor=0, window=128, token=b""):
    """rpc_gss_init_res (§5.2.3.1)."""
    return opaque(handle) + u32(major) + u32(minor) + u32(window) + opaque(token)


# ---- RPC-over-TLS (RFC 9289 §4.1) and TLS records (RFC 8446 §5.1) ----------
def tls_probe_call(xid, prog=NFS_PROG, vers=4):
    """The AUTH_TLS probe: a NULL call, credential AUTH_TLS, verifier AUTH_NONE."""
    return rpc_call(xid, prog, vers, 0, cred=b"", cred_flavor=AUTH_TLS)


def tls_probe_reply(xid):
    """The server's yes: verifier AUTH_NONE with the body "STARTTLS"."""
    return rpc_reply(xid, verf=b"STARTTLS")


def tls_record(content_type, payload, version=0x0303):
    return struct.pack(">BHH", content_type, version, len(payload)) + payload


def tls_handshake(msg_type, body):
    """RFC 8446 §4: msg_type, uint24 length, body."""
    return bytes([msg_type]) + len(body).to_bytes(3, "big") + body


# RFC 8446 §4.1.2, §4.1.3: legacy_version, random, session id, one cipher
# suite (TLS_AES_128_GCM_SHA256), null compression; supported_versions TLS 1.3.
TLS_CLIENT_HELLO = tls_handshake(1, b"\x03\x03" + b"\x42" * 32 + b"\x00" + b"\x00\x02\x13\x01" +
                                 b"\x01\x00" + b"\x00\x07" + b"\x00\x2b\x00\x03\x02\x03\x04")
TLS_SERVER_HELLO = tls_handshake(2, b"\x03\x03" + b"\x24" * 32 + b"\x00" + b"\x13\x01" + b"\x00" +
                                 b"\x00\x06" + b"\x00\x2b\x00\x02\x03\x04")


def record(msg, last=True, length=None):
    """TCP record marking (RFC 5531 §11): one fragment."""
    n = len(msg) if length is None else length
    return u32((0x80000000 if last else 0) | n) + msg


# NFSv3 / MOUNT v3 bodies (RFC 1813)
def fh3(fh):
    return opaque(fh)


def nfs3_lookup_args(dirfh, name):
    return fh3(dirfh) + opaque(name)


def nfs3_lookup_res(objfh):
    return u32(0) + fh3(objfh) + u32(0) + u32(0)  # NFS3_OK, object, no attrs (obj, dir)


def nfs3_getattr_res_err(status=2):
    return u32(status)  # e.g. NFS3ERR_NOENT: no attributes follow


def mnt_args(path):
    return opaque(path)


def mnt_res(rootfh):
    return u32(0) + fh3(rootfh) + u32(1) + u32(AUTH_SYS)


# ---- link / network / transport ---------------------------------------
def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack(">%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


def ip4(a):
    return bytes(int(x) for x in a.split("."))


def ipv4(src, dst, proto, payload, ident=1, mf=False, frag_off=0, total=None):
    tl = 20 + len(payload) if total is None else total
    flags = (0x2000 if mf else 0) | (frag_off // 8)
    h = struct.pack(">BBHHHBBH4s4s", 0x45, 0, tl, ident & 0xFFFF, flags, 64, proto, 0,
                    ip4(src), ip4(dst))
    h = h[:10] + struct.pack(">H", csum(h)) + h[12:]
    return h + payload


def udp(sport, dport, payload, length=None):
    n = 8 + len(payload) if length is None else length
    return struct.pack(">HHHH", sport, dport, n, 0) + payload


TH_FIN, TH_SYN, TH_RST, TH_PSH, TH_ACK = 0x01, 0x02, 0x04, 0x08, 0x10


def tcp(sport, dport, seq, ack, flags, payload=b""):
    return struct.pack(">HHIIBBHHH", sport, dport, seq & 0xFFFFFFFF, ack & 0xFFFFFFFF, 5 << 4,
                       flags, 65535, 0, 0) + payload


def eth(l3, ethertype=0x0800):
    return b"\x02\0\0\0\0\x02" + b"\x02\0\0\0\0\x01" + struct.pack(">H", ethertype) + l3


def udp_frame(src, sport, dst, dport, payload, ident=1):
    return eth(ipv4(src, dst, 17, udp(sport, dport, payload), ident=ident))


def tcp_frame(src, sport, dst, dport, seq, ack, flags, payload=b""):
    return eth(ipv4(src, dst, 6, tcp(sport, dport, seq, ack, flags, payload)))


class TcpConn:
    """A client/server TCP connection with a handshake; send() tracks sequence numbers."""

    def __init__(self, frames, cli=("10.0.0.1", 800), srv=("10.0.0.2", 2049), isn=(1000, 5000)):
        self.f, self.cli, self.srv = frames, cli, srv
        self.seq = [isn[0] + 1, isn[1] + 1]
        frames.append(tcp_frame(cli[0], cli[1], srv[0], srv[1], isn[0], 0, TH_SYN))
        frames.append(tcp_frame(srv[0], srv[1], cli[0], cli[1], isn[1], isn[0] + 1,
                                TH_SYN | TH_ACK))
        frames.append(tcp_frame(cli[0], cli[1], srv[0], srv[1], self.seq[0], self.seq[1], TH_ACK))

    def send(self, d, data, flags=TH_ACK | TH_PSH, mss=1448):
        a, b = (self.cli, self.srv) if d == 0 else (self.srv, self.cli)
        for i in range(0, max(len(data), 1), mss):
            piece = data[i:i + mss]
            self.f.append(tcp_frame(a[0], a[1], b[0], b[1], self.seq[d], self.seq[d ^ 1], flags,
                                    piece))
            self.seq[d] += len(piece)


# ---- pcap ----------------------------------------------------------------
def pcap_bytes(frames, snaplen=262144, linktype=DLT_EN10MB, t0=1700000000, step_us=1000):
    """frames: bytes, or dicts {data, caplen, wirelen, sec, usec} to lie about fields."""
    out = [struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, snaplen, linktype)]
    for i, fr in enumerate(frames):
        if isinstance(fr, (bytes, bytearray)):
            fr = {"data": bytes(fr)}
        data = fr["data"]
        t = t0 * 1000000 + i * step_us
        sec = fr.get("sec", t // 1000000)
        usec = fr.get("usec", t % 1000000)
        out.append(struct.pack("<IIII", sec, usec, fr.get("caplen", len(data)),
                               fr.get("wirelen", len(data))) + data)
    return b"".join(out)


def write_pcap(path, frames, **kw):
    with open(path, "wb") as f:
        f.write(pcap_bytes(frames, **kw))


def pcapng_bytes(frames, t0=1700000000, step_us=1000, linktype=DLT_EN10MB):
    """Section header, one interface (microseconds), one enhanced packet block per frame."""
    def block(btype, body):
        body += b"\0" * (-len(body) % 4)
        n = 12 + len(body)
        return struct.pack("<II", btype, n) + body + struct.pack("<I", n)

    out = [block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1)),
           block(0x00000001, struct.pack("<HHI", linktype, 0, 262144))]
    for i, data in enumerate(frames):
        t = t0 * 1000000 + i * step_us
        out.append(block(0x00000006, struct.pack("<IIIII", 0, t >> 32, t & 0xFFFFFFFF,
                                                 len(data), len(data)) + data))
    return b"".join(out)

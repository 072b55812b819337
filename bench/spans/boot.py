# bench/spans.sh's Python boot: a stack of stdlib imports (~300 spans),
# then listen; prints the ns from $T0 (the launch, CLOCK_REALTIME) to it.
import argparse, asyncio, concurrent.futures, csv, decimal, email.mime.text  # noqa: E401,F401
import http.server, json, logging, multiprocessing, sqlite3, unittest  # noqa: E401,F401
import urllib.request, xml.etree.ElementTree, zipfile, tarfile, socket, os, time  # noqa: E401,F401
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen()
print("listen_ns=%d" % (time.time_ns() - int(os.environ["T0"])))
s.close()

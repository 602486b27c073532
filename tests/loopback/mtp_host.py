#!/usr/bin/python3
"""Host-side MTP operations mtp-tools lack, through libmtp with ctypes.

  mtp_host.py rename ID NEWNAME      LIBMTP_Set_File_Name
  mtp_host.py send STORAGE LOCAL NAME  send LOCAL as NAME into the root of
                                     storage STORAGE (decimal or 0x..)
  mtp_host.py sendsize STORAGE LOCAL NAME SIZE
                                     the same, announcing SIZE bytes (a lie
                                     when SIZE is not LOCAL's size)
  mtp_host.py sendcancel STORAGE LOCAL NAME FRACTION
                                     the same, cancelled (libmtp sends the
                                     class cancel request) once FRACTION of
                                     the bytes went out
  mtp_host.py sendrun STORAGE LOCAL NAME FRACTION CMD
                                     the same, running the shell command CMD
                                     once FRACTION of the bytes went out
  mtp_host.py getall DIR             every file listed to DIR/ID, in one
                                     session; prints what each ID was
  mtp_host.py get DIR ID...          these files to DIR/ID, in one session
  mtp_host.py sendeach STORAGE LOCAL NAME...
                                     send LOCAL under each NAME in turn
  mtp_host.py events N               read up to N events until ObjectAdded
  mtp_host.py storeevents N          read N events, whatever they are,
                                     printing each ("event 1 param ID" is
                                     StoreAdded, 2 StoreRemoved)
  mtp_host.py find NAME              print "id ID size SIZE mtime T" of NAME
                                     (64-bit size, as libmtp reads it)
  mtp_host.py getpart ID OFFSET LEN OUT
                                     LEN bytes at OFFSET to the file OUT
                                     (GetPartialObject64 past 4 GiB)
  mtp_host.py sendpart ID OFFSET LOCAL
                                     LOCAL's bytes into the object at OFFSET
                                     (BeginEditObject, SendPartialObject,
                                     EndEditObject: Android's extension)
  mtp_host.py truncate ID SIZE       TruncateObject in an edit, the same way
  mtp_host.py mkdir STORAGE NAME     a folder NAME in the root of STORAGE
  mtp_host.py copy STORAGE SRC DST   CopyObject of SRC (a name in the root of
                                     STORAGE) into the folder DST there

getall, get and sendeach print "got"/"sent" or "refused" and the ID or
NAME for each file, and succeed whatever the device answered. The others
print "ok ..." and exit 0 on success, or print "failed ...", libmtp's
error stack, and exit 1.
"""
import ctypes
import os
import sys

mtp = ctypes.CDLL("libmtp.so.9")
libc = ctypes.CDLL(None)


class File(ctypes.Structure):
    pass


File._fields_ = [("item_id", ctypes.c_uint32), ("parent_id", ctypes.c_uint32),
                 ("storage_id", ctypes.c_uint32), ("filename", ctypes.c_void_p),
                 ("filesize", ctypes.c_uint64), ("modificationdate", ctypes.c_long),
                 ("filetype", ctypes.c_int), ("next", ctypes.POINTER(File))]

# LIBMTP_progressfunc_t: non-zero cancels the transfer.
Progress = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_uint64, ctypes.c_uint64,
                            ctypes.c_void_p)

mtp.LIBMTP_Get_First_Device.restype = ctypes.c_void_p
mtp.LIBMTP_Get_Filemetadata.restype = ctypes.POINTER(File)
mtp.LIBMTP_Get_Filemetadata.argtypes = [ctypes.c_void_p, ctypes.c_uint32]
mtp.LIBMTP_Set_File_Name.argtypes = [ctypes.c_void_p, ctypes.POINTER(File), ctypes.c_char_p]
mtp.LIBMTP_new_file_t.restype = ctypes.POINTER(File)
mtp.LIBMTP_Send_File_From_File.argtypes = [ctypes.c_void_p, ctypes.c_char_p,
                                           ctypes.POINTER(File), Progress,
                                           ctypes.c_void_p]
mtp.LIBMTP_Get_Filelisting_With_Callback.restype = ctypes.POINTER(File)
mtp.LIBMTP_Get_Filelisting_With_Callback.argtypes = [ctypes.c_void_p, Progress,
                                                     ctypes.c_void_p]
mtp.LIBMTP_Get_File_To_File.argtypes = [ctypes.c_void_p, ctypes.c_uint32,
                                        ctypes.c_char_p, Progress, ctypes.c_void_p]
mtp.LIBMTP_Dump_Errorstack.argtypes = [ctypes.c_void_p]
mtp.LIBMTP_Release_Device.argtypes = [ctypes.c_void_p]
mtp.LIBMTP_Read_Event.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_int),
                                   ctypes.POINTER(ctypes.c_uint32)]
mtp.LIBMTP_GetPartialObject.argtypes = [
    ctypes.c_void_p, ctypes.c_uint32, ctypes.c_uint64, ctypes.c_uint32,
    ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_uint)]
mtp.LIBMTP_SendPartialObject.argtypes = [ctypes.c_void_p, ctypes.c_uint32,
                                         ctypes.c_uint64, ctypes.c_char_p,
                                         ctypes.c_uint]
mtp.LIBMTP_TruncateObject.argtypes = [ctypes.c_void_p, ctypes.c_uint32,
                                      ctypes.c_uint64]
mtp.LIBMTP_BeginEditObject.argtypes = [ctypes.c_void_p, ctypes.c_uint32]
mtp.LIBMTP_EndEditObject.argtypes = [ctypes.c_void_p, ctypes.c_uint32]
mtp.LIBMTP_Create_Folder.restype = ctypes.c_uint32
mtp.LIBMTP_Create_Folder.argtypes = [ctypes.c_void_p, ctypes.c_char_p,
                                     ctypes.c_uint32, ctypes.c_uint32]
mtp.LIBMTP_Copy_Object.argtypes = [ctypes.c_void_p, ctypes.c_uint32,
                                   ctypes.c_uint32, ctypes.c_uint32]
libc.free.argtypes = [ctypes.c_void_p]
libc.strdup.restype = ctypes.c_void_p
libc.strdup.argtypes = [ctypes.c_char_p]


def rename(dev, args):
    f = mtp.LIBMTP_Get_Filemetadata(dev, int(args[0], 0))
    if not f:
        return False
    return mtp.LIBMTP_Set_File_Name(dev, f, args[1].encode()) == 0


def send_with(dev, args, size=None, progress=None):
    f = mtp.LIBMTP_new_file_t()
    f.contents.storage_id = int(args[0], 0)
    f.contents.parent_id = 0
    f.contents.filename = libc.strdup(args[2].encode())
    f.contents.filesize = os.path.getsize(args[1]) if size is None else size
    f.contents.filetype = 44  # LIBMTP_FILETYPE_UNKNOWN
    cb = Progress(progress) if progress else ctypes.cast(None, Progress)
    return mtp.LIBMTP_Send_File_From_File(dev, args[1].encode(), f, cb, None) == 0


def send(dev, args):
    return send_with(dev, args)


def sendsize(dev, args):
    return send_with(dev, args, size=int(args[3], 0))


def at_fraction(fraction, action):
    """A progress callback doing action() once sent/total >= fraction."""
    state = {"done": False}

    def progress(sent, total, _data):
        if total and sent >= fraction * total and not state["done"]:
            state["done"] = True
            print("at %d of %d bytes" % (sent, total))
            sys.stdout.flush()
            return action()
        return 0
    return progress


def sendcancel(dev, args):
    return send_with(dev, args, progress=at_fraction(float(args[3]), lambda: 1))


def sendrun(dev, args):
    def run():
        print("ran %r: exit %d" % (args[4], os.system(args[4])))
        return 0
    return send_with(dev, args, progress=at_fraction(float(args[3]), run))


def getall(dev, args):
    none = ctypes.cast(None, Progress)
    f = mtp.LIBMTP_Get_Filelisting_With_Callback(dev, none, None)
    while f:
        name = ctypes.string_at(f.contents.filename).decode(errors="replace")
        path = os.path.join(args[0], str(f.contents.item_id))
        rc = mtp.LIBMTP_Get_File_To_File(dev, f.contents.item_id, path.encode(),
                                         none, None)
        print("%s %d %s" % ("got" if rc == 0 else "refused", f.contents.item_id, name))
        f = f.contents.next
    return True


def get(dev, args):
    none = ctypes.cast(None, Progress)
    for h in args[1:]:
        path = os.path.join(args[0], h)
        rc = mtp.LIBMTP_Get_File_To_File(dev, int(h, 0), path.encode(), none, None)
        print("%s %s" % ("got" if rc == 0 else "refused", h))
    return True


def sendeach(dev, args):
    for name in args[2:]:
        ok = send_with(dev, [args[0], args[1], name])
        print("%s %s" % ("sent" if ok else "refused", name))
        sys.stdout.flush()
    return True


def events(dev, args):
    # Blocks in libmtp until an event comes: run this under timeout(1).
    ev, param = ctypes.c_int(0), ctypes.c_uint32(0)
    # The session is open: an event from now on waits on the interrupt
    # endpoint for the read below, so the caller may make one.
    print("listening")
    sys.stdout.flush()
    for _ in range(int(args[0])):
        if mtp.LIBMTP_Read_Event(dev, ctypes.byref(ev), ctypes.byref(param)) != 0:
            return False
        print("event %d param %d" % (ev.value, param.value))
        sys.stdout.flush()
        if ev.value == 3:  # LIBMTP_EVENT_OBJECT_ADDED
            return True
    return False


def storeevents(dev, args):
    # Blocks in libmtp until an event comes: run this under timeout(1).
    ev, param = ctypes.c_int(0), ctypes.c_uint32(0)
    print("listening")
    sys.stdout.flush()
    for _ in range(int(args[0])):
        if mtp.LIBMTP_Read_Event(dev, ctypes.byref(ev), ctypes.byref(param)) != 0:
            return False
        print("event %d param 0x%08x" % (ev.value, param.value))
        sys.stdout.flush()
    return True


def find(dev, args):
    none = ctypes.cast(None, Progress)
    f = mtp.LIBMTP_Get_Filelisting_With_Callback(dev, none, None)
    while f:
        if ctypes.string_at(f.contents.filename).decode(errors="replace") == args[0]:
            print("id %d size %d mtime %d" % (f.contents.item_id, f.contents.filesize,
                                              f.contents.modificationdate))
            return True
        f = f.contents.next
    print("no file %s" % args[0])
    return False


def getpart(dev, args):
    data, size = ctypes.c_void_p(), ctypes.c_uint(0)
    if mtp.LIBMTP_GetPartialObject(dev, int(args[0], 0), int(args[1], 0),
                                   int(args[2], 0), ctypes.byref(data),
                                   ctypes.byref(size)) != 0:
        return False
    with open(args[3], "wb") as out:
        out.write(ctypes.string_at(data, size.value))
    libc.free(data)
    print("got %d bytes" % size.value)
    return True


def edit(dev, oid, action):
    if mtp.LIBMTP_BeginEditObject(dev, oid) != 0:
        return False
    ok = action() == 0
    return mtp.LIBMTP_EndEditObject(dev, oid) == 0 and ok


def sendpart(dev, args):
    with open(args[2], "rb") as f:
        data = f.read()
    oid = int(args[0], 0)
    return edit(dev, oid, lambda: mtp.LIBMTP_SendPartialObject(
        dev, oid, int(args[1], 0), data, len(data)))


def truncate(dev, args):
    oid = int(args[0], 0)
    return edit(dev, oid, lambda: mtp.LIBMTP_TruncateObject(dev, oid, int(args[1], 0)))


def mkdir(dev, args):
    # LIBMTP_Create_Folder wants a name it may free: a malloc'ed copy.
    name = libc.strdup(args[1].encode())
    return mtp.LIBMTP_Create_Folder(dev, ctypes.cast(name, ctypes.c_char_p),
                                    0, int(args[0], 0)) != 0


class Folder(ctypes.Structure):
    pass


Folder._fields_ = [("folder_id", ctypes.c_uint32), ("parent_id", ctypes.c_uint32),
                   ("storage_id", ctypes.c_uint32), ("name", ctypes.c_char_p),
                   ("sibling", ctypes.POINTER(Folder)), ("child", ctypes.POINTER(Folder))]
mtp.LIBMTP_Get_Folder_List.restype = ctypes.POINTER(Folder)
mtp.LIBMTP_Get_Folder_List.argtypes = [ctypes.c_void_p]


def root_id(dev, storage, name):
    """The id of NAME (a file or folder) in the root of storage, or None."""
    f = mtp.LIBMTP_Get_Folder_List(dev)
    while f:
        if f.contents.storage_id == storage and f.contents.name.decode() == name:
            return f.contents.folder_id
        f = f.contents.sibling
    none = ctypes.cast(None, Progress)
    f = mtp.LIBMTP_Get_Filelisting_With_Callback(dev, none, None)
    while f:
        if f.contents.storage_id == storage and f.contents.parent_id in (0, 0xFFFFFFFF) and \
                ctypes.string_at(f.contents.filename).decode(errors="replace") == name:
            return f.contents.item_id
        f = f.contents.next
    return None


def copy(dev, args):
    storage = int(args[0], 0)
    src, dst = root_id(dev, storage, args[1]), root_id(dev, storage, args[2])
    if src is None or dst is None:
        print("no %s or no %s" % (args[1], args[2]))
        return False
    return mtp.LIBMTP_Copy_Object(dev, src, storage, dst) == 0


def main():
    cmds = {"rename": (rename, 2), "send": (send, 3), "sendsize": (sendsize, 4),
            "sendcancel": (sendcancel, 4), "sendrun": (sendrun, 5),
            "getall": (getall, 1), "get": (get, -2), "sendeach": (sendeach, -3),
            "events": (events, 1), "storeevents": (storeevents, 1), "find": (find, 1), "getpart": (getpart, 4),
            "sendpart": (sendpart, 3), "truncate": (truncate, 2),
            "mkdir": (mkdir, 2), "copy": (copy, 3)}
    # A negative count: at least that many arguments.
    n = len(sys.argv) - 2
    if len(sys.argv) < 2 or sys.argv[1] not in cmds or \
            (n != cmds[sys.argv[1]][1] if cmds[sys.argv[1]][1] >= 0 else n < -cmds[sys.argv[1]][1]):
        print(__doc__)
        return 2
    mtp.LIBMTP_Init()
    dev = mtp.LIBMTP_Get_First_Device()
    if not dev:
        print("failed: no MTP device")
        return 1
    ok = cmds[sys.argv[1]][0](dev, sys.argv[2:])
    if not ok:
        mtp.LIBMTP_Dump_Errorstack(dev)
    mtp.LIBMTP_Release_Device(dev)
    print("%s %s %s" % ("ok" if ok else "failed", sys.argv[1], " ".join(sys.argv[2:])))
    sys.stdout.flush()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

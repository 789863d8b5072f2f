#!/usr/bin/env python3
"""Makes the small DAISY 2.02 books the tests read (run from this folder; needs espeak-ng and
ffmpeg with libmp3lame). Each narrated piece is synthesised alone, the pieces of a section joined
into one MP3, and each SMIL clip is the piece's place in it (from the pieces' lengths)."""
import os, subprocess, tempfile, wave

VOICE = ["-v", "en+f3", "-s", "120"]


def synth(text, path):
    subprocess.run(["espeak-ng", *VOICE, "-w", path, text], check=True)
    with wave.open(path) as w:
        return w.getnframes() / w.getframerate()


def section_mp3(pieces, target, tmp):
    """pieces: texts; returns [(begin, end)] in seconds in the MP3 written to target."""
    times, files, at = [], [], 0.0
    for n, text in enumerate(pieces):
        path = os.path.join(tmp, f"{os.path.basename(target)}-{n}.wav")
        length = synth(text, path)
        times.append((at, at + length))
        files.append(path)
        at += length
    listing = os.path.join(tmp, "list.txt")
    with open(listing, "w") as f:
        f.writelines(f"file '{p}'\n" for p in files)
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "concat", "-safe", "0", "-i", listing,
                    "-ac", "1", "-ar", "22050", "-c:a", "libmp3lame", "-b:a", "32k", "-map_metadata", "-1",
                    "-write_xing", "0", "-id3v2_version", "0", target], check=True)
    return times


def npt(seconds):
    return f"npt={seconds:.3f}s"


HEAD = """<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">
<html xmlns="http://www.w3.org/1999/xhtml" xml:lang="en" lang="en">
"""


def smil(title, pars):
    """pars: [(par id, text src, audio file, begin, end)]"""
    body = "".join(
        f'    <par endsync="last" id="{pid}">\n      <text src="{src}" id="{pid}t"/>\n'
        f'      <seq><audio src="{audio}" clip-begin="{npt(b)}" clip-end="{npt(e)}" id="{pid}a"/></seq>\n    </par>\n'
        for pid, src, audio, b, e in pars)
    return f"""<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE smil PUBLIC "-//W3C//DTD SMIL 1.0//EN" "http://www.w3.org/TR/REC-smil/SMIL10.dtd">
<smil>
  <head><meta name="dc:title" content="{title}"/><layout><region id="txtView"/></layout></head>
  <body>
  <seq dur="{npt(pars[-1][4])}">
{body}  </seq>
  </body>
</smil>
"""


def meta(title, author):
    return f"""<head>
<title>{title}</title>
<meta http-equiv="Content-type" content="text/html; charset=utf-8"/>
<meta name="dc:title" content="{title}"/>
<meta name="dc:creator" content="{author}"/>
<meta name="dc:language" content="en"/>
<meta name="dc:format" content="Daisy 2.02"/>
</head>
"""


def pip(tmp):
    """A full-text book: two chapters, each sentence narrated, three print pages."""
    folder = "pip-202"
    os.makedirs(folder, exist_ok=True)
    chapters = [
        ("h1", "Pip goes out", [("s1", "Pip the snail woke up early."), ("s2", "The garden was wet and bright!"),
                                ("page", "2"), ("s3", "She sniffed a buttercup."), ("s4", "Hello, flower, said Pip.")]),
        ("h2", "Pip goes home", [("page", "3"), ("s5", "The sun came out."), ("s6", "Pip went home to sleep.")]),
    ]
    content = HEAD + meta("Pip the Snail", "Magical Stories") + '<body>\n<span class="page-normal" id="page1">1</span>\n'
    ncc = HEAD + meta("Pip the Snail", "Magical Stories") + "<body>\n"
    ncc += '<span class="page-normal" id="nccp1"><a href="chapter1.smil#p_s1">1</a></span>\n'
    for number, (hid, heading, sentences) in enumerate(chapters, start=1):
        spoken = [(hid, heading)] + [s for s in sentences if s[0] != "page"]
        times = dict(zip([s[0] for s in spoken], section_mp3([t for _, t in spoken], f"{folder}/chapter{number}.mp3", tmp)))
        smil_name = f"chapter{number}.smil"
        ncc += f'<h1 class="title" id="ncc{hid}"><a href="{smil_name}#p_{hid}">{heading}</a></h1>\n'
        content += f'<h1 id="{hid}">{heading}</h1>\n<p>'
        for sid, text in sentences:
            if sid == "page":
                ncc += f'<span class="page-normal" id="nccp{text}"><a href="{smil_name}#p_{sentences[sentences.index((sid, text)) + 1][0]}">{text}</a></span>\n'
                content += f'</p>\n<span class="page-normal" id="page{text}">{text}</span>\n<p>'
            else:
                shown = "“Hello, flower,” said Pip." if sid == "s4" else text
                content += f'<span id="{sid}">{shown}</span> '
        content += "</p>\n"
        pars = [(f"p_{sid}", f"content.html#{sid}", f"chapter{number}.mp3", *times[sid]) for sid, _ in spoken]
        with open(f"{folder}/{smil_name}", "w") as f:
            f.write(smil("Pip the Snail", pars))
    with open(f"{folder}/content.html", "w") as f:
        f.write(content.replace("<p></p>\n", "") + "</body>\n</html>\n")
    with open(f"{folder}/ncc.html", "w") as f:
        f.write(ncc + "</body>\n</html>\n")


def songs(tmp):
    """An audio-only (NCC-only) book: three sections, each a heading and its recording."""
    folder = "songs-audio-202"
    os.makedirs(folder, exist_ok=True)
    sections = [
        ("c1", "h1", "Chapter 1", ["Chapter 1.", "The moon sang to the sea."]),
        ("c2", "h1", "Chapter 2", ["Chapter 2.", "The sea sang back to the moon."]),
        ("c3", "h2", "Chapter 2, part 2", ["Part 2.", "And the fish danced all night."]),
    ]
    ncc = HEAD + meta("Three Little Songs", "Magical Stories") + "<body>\n"
    for number, (cid, level, heading, pieces) in enumerate(sections, start=1):
        times = section_mp3(pieces, f"{folder}/section{number}.mp3", tmp)
        ncc += f'<{level} id="{cid}"><a href="section{number}.smil#par_{cid}">{heading}</a></{level}>\n'
        # The heading's par points at the NCC; the rest of the section is more audio in it.
        body = f'    <par endsync="last" id="par_{cid}">\n      <text src="ncc.html#{cid}" id="{cid}t"/>\n      <seq>\n'
        body += "".join(f'        <audio src="section{number}.mp3" clip-begin="{npt(b)}" clip-end="{npt(e)}" id="{cid}a{n}"/>\n'
                        for n, (b, e) in enumerate(times))
        body += "      </seq>\n    </par>\n"
        with open(f"{folder}/section{number}.smil", "w") as f:
            f.write(smil("Three Little Songs", [("x", "", "", 0, times[-1][1])]).split("  <seq dur")[0]
                    + f'  <seq dur="{npt(times[-1][1])}">\n{body}  </seq>\n  </body>\n</smil>\n')
    with open(f"{folder}/ncc.html", "w") as f:
        f.write(ncc + "</body>\n</html>\n")


with tempfile.TemporaryDirectory() as tmp:
    pip(tmp)
    songs(tmp)
